"""Write benches/published.tsv (make figures' list) from docs/statistics.md:
each figure the adaptive bench's default sections and the sequence bench
(the tables of "Errors over a sequence", auto's among them) reproduce, as the doc prints it
(bracketed figures of earlier rounds and the tables' ± errors left out),
with the section it is published in. Run from the repository root after a doc's figures are
measured again: python3 scripts/figures-published.py > benches/published.tsv"""
import re, sys
doc = open('docs/statistics.md').read().split('\n')

def table(header_prefix):
    for i, l in enumerate(doc):
        if l.strip().startswith(header_prefix.strip()):
            rows = []
            j = i + 2
            while j < len(doc) and doc[j].strip().startswith('|'):
                rows.append([c.strip() for c in doc[j].strip().strip('|').split('|')])
                j += 1
            return i + 1, rows
    sys.exit('no table ' + header_prefix)

def clean(c):
    c = c.replace('**', '').replace('−', '-').replace(',', '')
    c = re.sub(r'\s*\([^)]*\)', '', c)  # bracketed earlier figures
    return c.strip()

out = []
def section(line):
    """The heading a (1-based) line sits under."""
    for l in reversed(doc[:line]):
        if l.startswith('#'):
            return l.lstrip('#').strip()
    return ''

def put(id_, value, where, bench="adaptive"):
    out.append(f"{bench}\t{id_}\t{value}\tdocs/statistics.md, {section(where)}")

line, rows = table('| setting | (a) false calls')
names = ["--runs 1", "--runs 3", "--runs 5", "--runs 10", "--runs auto (auto:16)", "--runs auto:10",
         "previous default (4, 6, 9, 13, 16)", "earlier auto (2, 4, 8, 10)"]
for name, r in zip(names, rows):
    for col, v in zip(['a', 'a0', 'b', 'c', 'd'], r[1:]):
        put(f"main/{name}/{col}", clean(v), line)
line, rows = table('| setting | (a0) of 20,000')
for name, r in zip(names, rows):
    for col, v in zip(['a0', 'd', 'c'], r[1:]):
        put(f"nulls/{name}/{col}", clean(v), line)
line, rows = table('| suite | --runs 3')
for r in rows:
    for col, v in zip(["--runs 3", "--runs 10", "auto", "previous default", "earlier auto"], r[1:]):
        put(f"single/{r[0]}/{col}", clean(v), line)
line, rows = table('| setting | rule accepts, 20,000')
for r in rows:
    for col, v in zip(['rule', 'mode', 'runs'], r[1:]):
        put(f"mode/nulls/{r[0]}/{col}", clean(v), line)
line, rows = table('| setting | rule accepts, 2,338')
names = ["--runs 3", "--runs 10", "--runs 20", "--runs auto (mode's policy)", "--runs auto:32 (mode's policy)",
         "--runs auto:50 (mode's policy)", "--runs auto:50, futility on conditional power"]
for name, r in zip(names, rows):
    for col, v in zip(['rule', 'mode', 'runs'], r[1:]):
        put(f"mode/better/{name}/{col}", clean(v), line)
line, rows = table('| gate | runs | real accepted')
for r in rows:
    for col, v in zip(['real', 'null', 'blocked', 'final', 'runs'], r[2:]):
        put(f"seq/{r[0]}/{r[1]}/{col}", clean(v).replace(' of real', ''), line)
shape = {"trigger pair (2)": "trigger pair (2 cases)", "pair + 1 (3)": "pair + 1 scoring (3 cases)",
         "pair + 4 (6)": "pair + 4 scoring (6 cases)", "2 pairs + 4 (8)": "2 pairs + 4 scoring (8 cases)"}
policy = {"default": ("", "default (auto:16)"), "previous default": ("", "previous default (4, 6, 9, 13, 16)"),
          "default, second seed": (", second seed", "default (auto:16)"),
          "previous default, second seed": (", second seed", "previous default (4, 6, 9, 13, 16)")}
line, rows = table('| shape | auto policy')
for r in rows:
    if r[1] not in policy:
        continue  # earlier default: measured under `-- alternatives`
    label, pol = policy[r[1]]
    id_ = f"shapes/{shape[r[0]]}{label}/{pol}"
    a0 = clean(r[3]).replace(' %', '').split(' / ')
    put(f"{id_}/a0 fixed 10", a0[0] + ' %', line)
    put(f"{id_}/a0", a0[1] + ' %', line)
    m = re.match(r'([\d.]+) / ([\d.]+) % \(([-+]\d+)\)', r[4].replace('−', '-'))
    put(f"{id_}/b fixed 10", m.group(1) + ' %', line)
    put(f"{id_}/b", m.group(2) + ' %', line)
    put(f"{id_}/b against fixed 10", m.group(3), line)
    if r[5] != '–':
        sm = r[5].replace(' %', '').split(' / ')
        put(f"{id_}/small fixed 10", sm[0] + ' %', line)
        put(f"{id_}/small", sm[1] + ' %', line)
    put(f"{id_}/c", r[6].split(' / ')[1], line)
    put(f"{id_}/share of fixed 10", r[7], line)
line, rows = table('| shape | MAX fresh | top-up')
for r in rows:
    top = r[2].replace('**', '').split(' ')[0]
    id_ = f"store/{shape[r[0]]}"
    m = re.match(r'([\d.]+) / ([\d.]+) % \(([-+]\d+)\)', r[3].replace('−', '-'))
    c = r[4].split(' / ')
    if top == '0':
        put(f"{id_}/b fixed 10", m.group(1) + ' %', line)
    put(f"{id_}/top-up {top}/b", m.group(2) + ' %', line)
    put(f"{id_}/top-up {top}/b against fixed 10", m.group(3), line)
    put(f"{id_}/top-up {top}/c", c[1], line)
    put(f"{id_}/top-up {top}/share of fixed 10", clean(r[5]), line)
    put(f"{id_}/top-up {top}/a0", clean(r[6]), line)
line, rows = table('| shape (2000 suites) | knowing')
for r in rows:
    id_ = f"yardstick/{r[0]}"
    for label, cell in [('known', r[1]), ('planned', r[2])]:
        runs, sh = [x.strip() for x in cell.split(',')]
        put(f"{id_}/{label}/runs", runs, line)
        put(f"{id_}/{label}/share of fixed 10", sh, line)
    for label, cell in [('planned', r[3]), ('auto', r[4])]:
        for kind, v in zip(['no difference', 'below 0.2', '0.2 or more'], cell.split(' / ')):
            if v.strip() != '–':
                put(f"{id_}/{label}/{kind}", v.strip(), line)
line, rows = table('| shape | auto from the store: share of fixed 10')
for r in rows:
    id_ = f"yardstick/{r[0]}"
    for label, cell in [('store', r[1]), ('variances known', r[2])]:
        m = re.match(r'(\d+ %), ([\d.]+ %) of \d+', cell)
        put(f"{id_}/{label}/share of fixed 10", m.group(1), line)
        put(f"{id_}/{label}/power at 0.2", m.group(2), line)
    for kind, v in zip(['no difference', 'below 0.2', '0.2 or more'], r[3].split(' / ')):
        if v.strip() != '–':
            put(f"{id_}/variances known/{kind}", v.strip(), line)
    put(f"{id_}/variances known/b against fixed 10", clean(r[4]).split(' of ')[0], line)
line, rows = table('| cases | d |')
for r in rows:
    for col, v in zip(['fixed 10', 'auto', 'from the store'], r[2:]):
        m = re.match(r'([\d.]+ %) \(([\d.]+)\)', v)
        put(f"power/{r[0]} cases/d {r[1]}/{col}", m.group(1), line)
        if col != 'fixed 10':
            put(f"power/{r[0]} cases/d {r[1]}/{col}/runs", m.group(2), line)
arch = {"trigger pair, no-difference": "trigger pair (2 cases), no-difference suites",
        "pair + 1, no-difference": "pair + 1 scoring (3 cases), no-difference suites",
        "pair + 4, no-difference": "pair + 4 scoring (6 cases), no-difference suites",
        "2 pairs + 4, no-difference": "2 pairs + 4 scoring (8 cases), no-difference suites",
        "2 coin-flip cases": "2 coin-flip cases (0.5 / 0.5)", "4 coin-flip cases": "4 coin-flip cases (0.5 / 0.5)",
        "8 coin-flip cases": "8 coin-flip cases (0.5 / 0.5)"}
line, rows = table('| suites | top-up | mean')
for r in rows:
    top = r[1].replace('**', '').split(' ')[0]
    for col, v in zip(['mean', 'median', '90th percentile', 'worst'], r[2:]):
        put(f"archive/{arch[r[0]]}/top-up {top}/{col}", clean(v), line)
line, rows = table('  | runs per arm | fires')
for r in rows:
    for col, v in zip(['score p', 'uncorrected p', 'exact p'], r[2:]):
        put(f"exact/{r[1]}/{col}", v, line)
def line_of(text):
    return next(i + 1 for i, l in enumerate(doc) if text in l)
line = line_of('Auto stopped with a clear suite')
for k, v in [('suite-clear', '48.5 %'), ('futile', '49.6 %'), ('negligible', '0.0 %'), ('max-reached', '1.9 %')]:
    put(f"main/auto stops/{k}", v, line)
line = line_of('On 4,000 no-difference suites of')
names = list(shape.values())
for label, vals in [('fixed 10', ['0.57', '1.12', '1.15', '0.97']), ('default auto', ['0.10', '0.53', '0.85', '0.55']),
                    ('previous default', ['0.23', '0.55', '0.80', '0.47']), ('earlier auto', ['0.45', '0.75', '0.80', '0.70'])]:
    for n, v in zip(names, vals):
        put(f"shape nulls/{n}/{label}/a0", v + ' %', line)
for label, vals in [('default auto', ['26.4', '36.1', '77.7', '99.5']), ('previous default', ['25.6', '36.6', '71.8', '95.0'])]:
    for n, v in zip(names, vals):
        put(f"shape nulls/{n}/{label}/c", v, line + 6)
line = line_of('would spend 15.9')
for n, runs, sh, auto in zip(names, ['15.9', '20.2', '35.6', '50.0'], ['40', '34', '30', '31'], ['72', '74', '77', '69']):
    put(f"oracle/{n}/runs", runs, line)
    put(f"oracle/{n}/share of fixed 10", sh + ' %', line)
    put(f"oracle/{n}/auto's share", auto + ' %', line + 1)
line, rows = table('| design | cases | MAX | false calls above')
for r in rows:
    id_ = f"plan/{r[0]}/{r[1]} cases"
    put(f"{id_}/false calls above", clean(r[3]), line)
    put(f"{id_}/power", clean(r[4]), line)
    for at, v in zip(["0", "0.1", "0.2"], r[5].split(' / ')):
        put(f"{id_}/runs at {at}", v.strip(), line)
line, rows = table('| cases | p | MAX from the archive')
for r in rows:
    id_ = f"plan/from the store/{r[0]} cases/p {r[1]}"
    put(f"{id_}/false calls above", clean(r[3]), line)
    put(f"{id_}/power", clean(r[4]), line)
    for at, v in zip(["0", "0.2"], r[5].split(' / ')):
        put(f"{id_}/runs at {at}", v.strip(), line)
line, rows = table('| cases | power at 0.2, fresh | power at 0.2, from the store |')
for r in rows:
    put(f"plan/arms at 0/{r[0]} cases/fresh", clean(r[1]), line)
    put(f"plan/arms at 0/{r[0]} cases/from the store", clean(r[2]), line)
line, rows = table('| cases | p | d = 0.2: price / bought')
for r in rows:
    id_ = f"plan/price/{r[0]} cases/p {r[1]}"
    for at, cell in [("0.2", r[2]), ("0", r[3])]:
        said, bought = cell.split(' / ')
        put(f"{id_}/price at {at}", said.strip(), line)
        put(f"{id_}/bought at {at}", bought.strip(), line)
# The sequence bench (benches/sequence.rs): its three tables, each value
# without the table's ± (one standard error; the bench prints its own).
def seq(id_, value, where):
    put(id_, value.split(' ± ')[0].strip(), where, "sequence")
line, rows = table('| start | cases | runs | plain 95 % each')
for r in rows:
    for col, v in zip(["plain 95 % each", "online fallback (shipped)", "fallback, smooth γ"], r[3:]):
        seq(f"fwer/{r[0]}/{r[1]} cases/runs {r[2]}/{col}", v, line)
line, rows = table('| start | cases | runs | power at 95 %')
for r in rows:
    id_ = f"power/{r[0]}/{r[1]} cases/runs {r[2]}"
    seq(f"{id_}/power at 95 %", r[3], line)
    for level, v in zip(["proposals 1–12", "proposal 13", "after an accept"], r[4:]):
        power_, ratio = v.split(', ')
        seq(f"{id_}/{level}/power", power_, line)
        seq(f"{id_}/{level}/ratio", ratio, line)
line, rows = table('| runs | procedure | any false accept')
cases = re.search(r'(\d+) cases:', ' '.join(doc[line - 5:line])).group(1)  # "…per row, 6 cases:"
for r in rows:
    for col, v in zip(["any false accept", "real gains accepted"], r[2:]):
        seq(f"mixed/{cases} cases/runs {r[0]}/{r[1]}/{col}", v, line)
line, rows = table('| cases | any false accept | runs, no effect')
for r in rows:
    for col, v in zip(["any false accept", "runs, no effect", "power at 95 %", "power in the sequence",
                       "ratio", "runs at 95 %", "runs in the sequence"], r[1:]):
        seq(f"auto/{r[0]} cases/{col}", v, line)
print("# bench\tfigure\tpublished value\twhere (make figures, scripts/figures.sh; written by scripts/figures-published.py)")
for l in out:
    print(l)
