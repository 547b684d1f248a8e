#!/bin/sh
# Refuse a Write or Edit whose input holds something shaped like a token.
if grep -Eq 'ghp_[A-Za-z0-9]{20,}|AKIA[0-9A-Z]{16}'; then
  echo "refused: the content holds a secret" >&2
  exit 2
fi
exit 0
