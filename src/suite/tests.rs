use super::{
    CaseSource, Entry, Grader, GraderSpec, MatchMode, Scan, Section, Target, ToolRef, Unterminated,
    Utf8PathBuf, Value, key_lines, key_string, load_case, parse_match, split_markdown,
    yaml_too_deep,
};

#[test]
fn splits_frontmatter_and_body() {
    let md = split_markdown("---\nmax_turns: 6\n---\n\nHello\n").unwrap();
    assert_eq!(md.frontmatter, Some("max_turns: 6\n"));
    assert_eq!(md.frontmatter_line, 2);
    assert_eq!(md.body, "Hello\n");
    assert_eq!(md.body_line, 5);
}

#[test]
fn no_frontmatter_and_unterminated() {
    let md = split_markdown("Just a prompt").unwrap();
    assert_eq!(md.frontmatter, None);
    assert_eq!(md.body, "Just a prompt");
    assert_eq!(split_markdown("---\ntype: llm\nno end"), Err(Unterminated));
    assert_eq!(split_markdown("---x\n").unwrap().frontmatter, None);
}

#[test]
fn key_lines_follow_nesting_and_lists() {
    let text = "schema_version: \"1.1\"\nname: x\nexecution:\n  max_turns: 4\n  env:\n    EVAL_A: b\ngraders:\n  - name: one\n    type: regex\n  - name: two\n    type: llm\ncontext:\n  add_dirs:\n  - a\n";
    let lines = key_lines(text, 1);
    assert_eq!(lines["name"], 2);
    assert_eq!(lines["execution.max_turns"], 4);
    assert_eq!(lines["execution.env.EVAL_A"], 6);
    assert_eq!(lines["graders.0"], 8);
    assert_eq!(lines["graders.0.type"], 9);
    assert_eq!(lines["graders.1.name"], 10);
    assert_eq!(lines["context.add_dirs.0"], 14);
}

#[test]
fn yaml_depth_counts_what_nests_and_skips_text() {
    assert_eq!(yaml_too_deep("a: [[[x]]]\n", 3), Some(0));
    assert_eq!(yaml_too_deep("a: [[[x]]]\n", 5), None);
    assert_eq!(yaml_too_deep("- - - - - x\n", 4), Some(0));
    assert_eq!(yaml_too_deep("a:\n  b:\n    c:\n      d: x\n", 4), Some(3));
    assert_eq!(yaml_too_deep("a:\n  b:\n    c:\n      d: x\n", 5), None);
    // Quoted scalars, comments and block scalars are text, not nesting.
    let text = "a: '[[[[[[x'\nb: \"[[[[[\\\"[[\"\nc: # [[[[[[\nd: |\n  [[[[[[[\n  {{{{{{\ne: x\n";
    assert_eq!(yaml_too_deep(text, 3), None);
    // A quote inside a plain scalar hides nothing.
    assert_eq!(yaml_too_deep("a: it's [[[[[[\n", 3), Some(0));
    // Sibling keys and list items do not add up.
    let flat: String = (0..500)
        .map(|i| format!("k{i}: [a, {{b: c}}]\n- x\n"))
        .collect();
    assert_eq!(yaml_too_deep(&flat, 8), None);
}

#[test]
fn key_lines_offset_and_quoted_keys() {
    let lines = key_lines("'max_turns': 3\n\"a b\": 1\n", 2);
    assert_eq!(lines["max_turns"], 2);
    assert_eq!(lines["a b"], 3);
}

#[test]
fn grader_specs_take_defaults() {
    let g = |yaml: &str| {
        let Value::Mapping(map) = serde_norway::from_str::<Value>(yaml).unwrap() else {
            panic!()
        };
        let fields = map
            .into_iter()
            .map(|(k, v)| {
                (
                    key_string(&k),
                    Entry {
                        value: v,
                        file: "g.md".into(),
                        line: None,
                    },
                )
            })
            .collect();
        Grader {
            name: "g".into(),
            file: "g.md".into(),
            line: None,
            fields,
        }
        .spec()
    };
    assert_eq!(
        g("type: regex\npattern: x"),
        Some(GraderSpec::Regex {
            pattern: "x".into(),
            flags: String::new(),
            mode: MatchMode::Contains,
            target: Target::LastMessage
        })
    );
    assert_eq!(
        g("type: tool_used\ntool: Skill"),
        Some(GraderSpec::ToolUsed {
            tool: "Skill".into(),
            input_match: None,
            min: 1,
            max: None
        })
    );
    assert_eq!(
        g("type: tool_order\nbefore: Glob\nafter: {tool: Write, input_match: x}"),
        Some(GraderSpec::ToolOrder {
            before: ToolRef {
                tool: "Glob".into(),
                input_match: None
            },
            after: ToolRef {
                tool: "Write".into(),
                input_match: Some("x".into())
            }
        })
    );
    assert_eq!(
        g("type: file_exists\npath: out/*.md"),
        Some(GraderSpec::FileExists {
            path: "out/*.md".into(),
            exists: true
        })
    );
    assert_eq!(
        g("type: llm\ncriteria: c\nfocus: {source: file, path: a.md}"),
        Some(GraderSpec::Llm {
            criteria: "c".into(),
            focus: Target::File("a.md".into())
        })
    );
    assert_eq!(
        g("type: baseline\nbaseline_file: b.jsonl\ncriteria: c"),
        Some(GraderSpec::Baseline {
            baseline_file: "b.jsonl".into(),
            criteria: "c".into()
        })
    );
    assert_eq!(
        g("type: regex\npattern: x\nmatch: count:2").map(|s| matches!(
            s,
            GraderSpec::Regex {
                mode: MatchMode::Count(2),
                ..
            }
        )),
        Some(true)
    );
    assert_eq!(g("type: regex"), None);
    assert_eq!(g("type: nope"), None);
}

#[test]
fn parse_match_modes() {
    assert_eq!(parse_match("count:3"), Some(MatchMode::Count(3)));
    assert_eq!(parse_match("count:"), None);
    assert_eq!(parse_match("count:-1"), None);
    assert_eq!(parse_match("contain"), None);
}

#[test]
fn a_case_merges_prompt_md_over_case_yaml() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = Utf8PathBuf::from_path_buf(tmp.path().join("merged")).unwrap();
    std::fs::create_dir_all(dir.join("graders")).unwrap();
    std::fs::write(
        dir.join("case.yaml"),
        "schema_version: \"1.1\"\nname: from-yaml\nbogus: 1\nexecution:\n  max_turns: 4\n  disallowed_tools: [Bash]\n  nope: x\ncontext:\n  history_file: h.jsonl\ngraders:\n  - type: llm\n    criteria: c\n  - 7\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("prompt.md"),
        "---\nmax_turns: 6\ndisallowed_tools: [Write]\nrunz: 2\n---\n\nDo it.\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("graders/says.md"),
        "---\ntype: llm\n---\nSays it.\n",
    )
    .unwrap();
    std::fs::write(dir.join("graders/plain.md"), "no frontmatter\n").unwrap();
    let mut problems = Vec::new();
    let case = load_case(&dir, true, true, &Scan::default(), &mut problems);

    assert_eq!(case.name, "from-yaml");
    assert_eq!(case.source, CaseSource::Mixed);
    assert_eq!(case.max_turns(), 6);
    assert_eq!(case.prompt_text(), "Do it.");
    assert_eq!(case.prompt().unwrap().line, Some(7));
    let disallowed = &case.execution["disallowed_tools"];
    assert_eq!(
        disallowed.value,
        serde_norway::from_str::<Value>("[Bash, Write]").unwrap()
    );
    assert_eq!(disallowed.file, dir.join("prompt.md"));
    assert!(case.context.contains_key("history_file"));
    let graders: Vec<(&str, Option<usize>)> = case
        .graders
        .iter()
        .map(|g| (g.name.as_str(), g.line))
        .collect();
    assert_eq!(graders, [("grader #1", Some(11)), ("says", Some(1))]);
    assert_eq!(case.ignored_graders, [dir.join("graders/plain.md")]);
    let unknown: Vec<(&str, Section, Option<usize>)> = case
        .unknown_keys
        .iter()
        .map(|u| (u.key.as_str(), u.section, u.line))
        .collect();
    assert_eq!(
        unknown,
        [
            ("bogus", Section::CaseTop, Some(3)),
            ("nope", Section::CaseExecution, Some(7)),
            ("runz", Section::PromptFrontmatter, Some(4)),
        ]
    );
    let codes: Vec<&str> = problems.iter().map(|d| d.code).collect();
    assert_eq!(codes, ["wrong-type"]);
    assert!(case.broken);
}
