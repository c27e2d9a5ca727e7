//! The catalog compiler (`gitlab-mcp-catalog`, which the build runs) on
//! small catalogs: it reports every mistake at once, each naming its file,
//! item and field (a mistyped kind, an unknown toolset, handler or check, a
//! word outside a closed set, a path parameter that contradicts its
//! template, an icon without its SVG), in every file even after one fails;
//! it infers path parameters from the placeholders, finds a tool file's
//! own `[params]`, embeds each tool's icon, and writes the `Handler` and
//! `Check` enums; the JSON it embeds is JSON.

use gitlab_mcp_catalog::{Generated, Problem, Problems, Sources, compile_sources, json};

const SHARED: &str = r#"
[params.project_id]
type = "string"
doc = "Project."

[params.page]
type = "integer"
doc = "Page."

[toolsets]
core = "The everyday work."
"#;

const KINDS: &str = r#"
[defaults]
long_text = ["description"]

[kinds.issue]
summary = ["iid", "title"]
"#;

const VOCABULARY: &str = r#"
param_synonyms = {}
action_words = {}
action_synonyms = {}
envelope_aliases = { params = [], action = [] }
examples = { by_name = {}, by_format = {}, by_type = {} }
peer_toolsets = {}
peer_tools = {}
"#;

const ICON: &str = "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 24 24'/>";

/// A tool file of one action, `list`, on `/projects/{project_id}/issues`.
fn tool(name: &str, toolsets: &str, action_extra: &str) -> String {
    format!(
        r#"icon = "issue"
name = "{name}"
title = "A tool"
toolsets = {toolsets}
summary = "A tool."
example = '{{"action": "list", "params": {{"project_id": "g/p"}}}}'

[[actions]]
name = "list"
summary = "List them."
http = "GET /projects/{{project_id}}/issues"
read_only = true
destructive = false
idempotent = true
use = ["project_id"]
{action_extra}
"#
    )
}

/// A small catalog with these tool files; `upload` is the only handler
/// file, `commit_actions` the only check file.
fn catalog(tools: &[(&str, String)]) -> Sources {
    let mut files: Vec<(String, String)> = vec![
        ("_shared.toml".into(), SHARED.into()),
        ("kinds.toml".into(), KINDS.into()),
        ("vocabulary.toml".into(), VOCABULARY.into()),
        ("prompts.toml".into(), "prompts = []".into()),
        ("urls.toml".into(), "shapes = []\nreferences = {}".into()),
    ];
    files.extend(tools.iter().map(|(n, t)| (format!("{n}.toml"), t.clone())));
    Sources {
        catalog_dir: "catalog".into(),
        src_dir: "src".into(),
        files: files.into_iter().collect(),
        icons: [("issue", ICON), ("server", ICON)]
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .into(),
        handler_files: ["upload".to_string()].into(),
        check_files: ["commit_actions".to_string()].into(),
        ..Sources::default()
    }
}

fn compiled(tools: &[(&str, String)]) -> Generated {
    compile_sources(&catalog(tools), None).unwrap_or_else(|problems| panic!("{problems}"))
}

fn problems(tools: &[(&str, String)]) -> Vec<Problem> {
    match compile_sources(&catalog(tools), None) {
        Ok(_) => Vec::new(),
        Err(Problems(problems)) => problems,
    }
}

fn problem(file: &str, item: &str, field: Option<&'static str>, message: &str) -> Problem {
    Problem {
        file: file.into(),
        item: item.into(),
        field,
        message: message.into(),
    }
}

#[test]
fn a_well_formed_entry_builds() {
    compiled(&[(
        "gitlab_issue",
        tool("gitlab_issue", r#"["core"]"#, r#"returns = "issue[]""#),
    )]);
    let code = compiled(&[(
        "gitlab_issue",
        tool(
            "gitlab_issue",
            r#"["core"]"#,
            "returns = \"nothing\"\nhandler = \"upload\"\ncheck = \"commit_actions\"",
        ),
    )])
    .code;
    assert!(
        code.contains("check: Some(Check::CommitActions), handler: Some(Handler::Upload),"),
        "{code}"
    );
}

#[test]
fn two_mistakes_in_two_files_fail_once_naming_both() {
    let result = compile_sources(
        &catalog(&[
            (
                "gitlab_label",
                tool("gitlab_label", r#"["cor"]"#, r#"returns = "issue[]""#),
            ),
            (
                "gitlab_issue",
                tool("gitlab_issue", r#"["core"]"#, r#"returns = "isue[]""#),
            ),
        ]),
        None,
    );
    let problems = result.expect_err("refused");
    assert_eq!(
        problems.0,
        [
            problem(
                "catalog/gitlab_issue.toml",
                "action `list`",
                Some("returns"),
                "`isue[]` names no kind of catalog/kinds.toml (declare it there, or use \"text\", \"log\" or \"nothing\")",
            ),
            problem(
                "catalog/gitlab_label.toml",
                "",
                Some("toolsets"),
                "toolset `cor` is not declared in catalog/_shared.toml [toolsets] (declared: core)",
            ),
        ]
    );
    // What the build fails with, once.
    assert_eq!(
        problems.to_string(),
        "2 problems in the catalog:\n\
         - catalog/gitlab_issue.toml: action `list`: `returns`: `isue[]` names no kind of catalog/kinds.toml (declare it there, or use \"text\", \"log\" or \"nothing\")\n\
         - catalog/gitlab_label.toml: `toolsets`: toolset `cor` is not declared in catalog/_shared.toml [toolsets] (declared: core)\n"
    );
}

#[test]
fn a_word_outside_a_closed_set_is_a_toml_error_with_its_line_and_the_other_files_are_still_checked()
{
    let problems = problems(&[
        (
            "gitlab_issue",
            tool(
                "gitlab_issue",
                r#"["core"]"#,
                "returns = \"issue[]\"\nparams = [\n  { name = \"state\", type = \"strin\", doc = \"State.\" },\n]",
            ),
        ),
        (
            "gitlab_label",
            tool("gitlab_label", r#"["cor"]"#, r#"returns = "issue[]""#),
        ),
    ]);
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert_eq!(
        (problems[0].file.as_str(), problems[0].item.as_str()),
        ("catalog/gitlab_issue.toml", "")
    );
    assert!(
        // The line of the entry (a parameter's keys are read as a whole).
        problems[0].message.contains("line 18, column 3\n")
            && problems[0].message.contains("unknown variant `strin`")
            && problems[0].message.contains("`string`, `integer`"),
        "{}",
        problems[0].message
    );
    assert_eq!(problems[1].file, "catalog/gitlab_label.toml");
    assert_eq!(problems[1].field, Some("toolsets"));
}

#[test]
fn a_mistyped_location_or_style_is_refused() {
    for (param, word) in [
        (
            "{ name = \"state\", type = \"string\", in = \"querry\", doc = \"S.\" }",
            "querry",
        ),
        (
            "{ name = \"labels\", type = \"array\", items = \"string\", style = \"cvs\", doc = \"L.\" }",
            "cvs",
        ),
        (
            "{ name = \"labels\", type = \"array\", items = \"strng\", doc = \"L.\" }",
            "strng",
        ),
    ] {
        let extra = format!("returns = \"issue[]\"\nparams = [{param}]");
        let problems = problems(&[("gitlab_issue", tool("gitlab_issue", r#"["core"]"#, &extra))]);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0]
                .message
                .contains(&format!("unknown variant `{word}`")),
            "{}",
            problems[0].message
        );
    }
}

#[test]
fn an_unknown_toolset_fails_naming_the_file() {
    let problems = problems(&[(
        "gitlab_issue",
        tool("gitlab_issue", r#"["cor"]"#, r#"returns = "issue[]""#),
    )]);
    assert_eq!(
        problems,
        [problem(
            "catalog/gitlab_issue.toml",
            "",
            Some("toolsets"),
            "toolset `cor` is not declared in catalog/_shared.toml [toolsets] (declared: core)"
        )]
    );
}

#[test]
fn a_featured_action_the_file_lacks_or_names_twice_fails_naming_the_file() {
    let file = tool("gitlab_issue", r#"["core"]"#, r#"returns = "issue[]""#).replace(
        r#"icon = "issue""#,
        "icon = \"issue\"\nfeatured = [\"list\", \"lst\", \"list\"]",
    );
    assert_eq!(
        problems(&[("gitlab_issue", file)]),
        [
            problem(
                "catalog/gitlab_issue.toml",
                "",
                Some("featured"),
                "`lst` is not an action of this file"
            ),
            problem(
                "catalog/gitlab_issue.toml",
                "",
                Some("featured"),
                "`list` is named twice"
            ),
        ]
    );
}

#[test]
fn an_icon_without_its_svg_and_a_catalog_without_the_server_s_fail_naming_the_file() {
    let file = tool("gitlab_issue", r#"["core"]"#, r#"returns = "issue[]""#)
        .replace(r#"icon = "issue""#, r#"icon = "isue""#);
    let mut sources = catalog(&[("gitlab_issue", file)]);
    sources.icons.remove("server");
    let problems = match compile_sources(&sources, None) {
        Ok(_) => Vec::new(),
        Err(Problems(problems)) => problems,
    };
    assert_eq!(
        problems,
        [
            problem(
                "catalog/gitlab_issue.toml",
                "",
                Some("icon"),
                "`isue` has no file catalog/icons/isue.svg (icons: issue)"
            ),
            problem(
                "catalog/icons/server.svg",
                "",
                None,
                "missing: the server's own icon"
            ),
        ]
    );
    let code = compiled(&[(
        "gitlab_issue",
        tool(
            "gitlab_issue",
            r#"["core"]"#,
            "returns = \"issue[]\"\nlong_running = true",
        ),
    )])
    .code;
    assert!(code.contains(&format!("icon: {ICON:?},")), "{code}");
    assert!(code.contains("long_running: true,"), "{code}");
}

#[test]
fn a_destructive_action_cannot_be_long_running() {
    let file = tool(
        "gitlab_issue",
        r#"["core"]"#,
        "returns = \"issue[]\"\nlong_running = true",
    )
    .replace("destructive = false", "destructive = true");
    assert_eq!(
        problems(&[("gitlab_issue", file)]),
        [problem(
            "catalog/gitlab_issue.toml",
            "action `list`",
            Some("long_running"),
            "a destructive action cannot be long-running: a task has no one to confirm it"
        )]
    );
}

#[test]
fn an_unknown_handler_or_check_fails_naming_file_and_action() {
    let problems = problems(&[(
        "gitlab_issue",
        tool(
            "gitlab_issue",
            r#"["core"]"#,
            "returns = \"issue[]\"\nhandler = \"uplaod\"\ncheck = \"commit\"",
        ),
    )]);
    assert_eq!(
        problems,
        [
            problem(
                "catalog/gitlab_issue.toml",
                "action `list`",
                Some("handler"),
                "handler `uplaod` has no file src/handlers/uplaod.rs (handlers: upload)"
            ),
            problem(
                "catalog/gitlab_issue.toml",
                "action `list`",
                Some("check"),
                "check `commit` has no file src/dispatch/checks/commit.rs (checks: commit_actions)"
            ),
        ]
    );
}

#[test]
fn the_enums_hold_every_handler_and_check_the_catalog_names() {
    let code = compiled(&[
        (
            "gitlab_issue",
            tool(
                "gitlab_issue",
                r#"["core"]"#,
                "returns = \"nothing\"\nhandler = \"upload\"",
            ),
        ),
        (
            "gitlab_label",
            tool(
                "gitlab_label",
                r#"["core"]"#,
                "returns = \"nothing\"\ncheck = \"commit_actions\"",
            ),
        ),
    ])
    .code;
    assert!(code.contains("pub enum Handler { Upload, }"), "{code}");
    assert!(code.contains("pub enum Check { CommitActions, }"), "{code}");
    let none = compiled(&[(
        "gitlab_issue",
        tool("gitlab_issue", r#"["core"]"#, "returns = \"nothing\""),
    )])
    .code;
    assert!(none.contains("pub enum Handler {  }"), "{none}");
}

#[test]
fn only_the_named_tool_files_compile_but_the_enums_keep_every_name() {
    let sources = catalog(&[
        (
            "gitlab_issue",
            tool("gitlab_issue", r#"["core"]"#, r#"returns = "issue[]""#),
        ),
        (
            "gitlab_label",
            tool(
                "gitlab_label",
                r#"["cor"]"#,
                "returns = \"nothing\"\nhandler = \"upload\"",
            ),
        ),
        (
            "gitlab_milestone",
            tool("gitlab_milestone", r#"["core"]"#, r#"returns = "issue[]""#),
        ),
    ]);
    let code = compile_sources(&sources, Some("gitlab_issue"))
        .unwrap_or_else(|problems| panic!("{problems}"))
        .code;
    assert!(code.contains("name: \"gitlab_issue\""), "{code}");
    assert!(!code.contains("name: \"gitlab_label\""), "{code}");
    assert!(code.contains("pub enum Handler { Upload, }"), "{code}");
    let problems = compile_sources(&sources, Some("gitlab_label")).expect_err("refused");
    assert_eq!(problems.0.len(), 1, "{problems}");
    assert_eq!(problems.0[0].file, "catalog/gitlab_label.toml");
    // A list names several files (BENCHMARKS.md's smaller catalog): each
    // is written and checked, the others neither.
    let code = compile_sources(&sources, Some("gitlab_issue, gitlab_milestone"))
        .unwrap_or_else(|problems| panic!("{problems}"))
        .code;
    assert!(code.contains("name: \"gitlab_issue\""), "{code}");
    assert!(code.contains("name: \"gitlab_milestone\""), "{code}");
    assert!(!code.contains("name: \"gitlab_label\""), "{code}");
    let problems =
        compile_sources(&sources, Some("gitlab_milestone,gitlab_label")).expect_err("refused");
    assert_eq!(problems.0.len(), 1, "{problems}");
    assert_eq!(problems.0[0].file, "catalog/gitlab_label.toml");
}

/// The `ParamSpec` the compiler writes for `name`.
fn param_spec<'a>(code: &'a str, name: &str) -> &'a str {
    let start = code
        .find(&format!("ParamSpec {{ name: \"{name}\""))
        .unwrap_or_else(|| panic!("no {name} in {code}"));
    let end = code[start..].find(" },").expect("closed") + start;
    &code[start..end]
}

#[test]
fn a_placeholder_is_a_required_path_parameter_without_saying_so() {
    let extra = "returns = \"issue[]\"\nparams = [\n  { name = \"state\", type = \"string\", doc = \"S.\" },\n]";
    let mut file = tool("gitlab_issue", r#"["core"]"#, extra);
    file = file.replace(
        "/projects/{project_id}/issues\"",
        "/projects/{project_id}/issues/{issue_iid}\"",
    );
    file = file.replace(
        "  { name = \"state\"",
        "  { name = \"issue_iid\", type = \"integer\", doc = \"I.\" },\n  { name = \"state\"",
    );
    let code = compiled(&[("gitlab_issue", file)]).code;
    assert!(
        param_spec(&code, "project_id").contains("location: Location::Path, required: true,"),
        "{code}"
    );
    let iid = param_spec(&code, "issue_iid");
    assert!(
        iid.contains("location: Location::Path, required: true,")
            && iid.contains("minimum: Some(1),"),
        "{iid}"
    );
    assert!(
        param_spec(&code, "state").contains("location: Location::Query, required: false,"),
        "{code}"
    );
    assert!(
        code.contains("parts: &[PathPart::Literal(\"/projects/\"),PathPart::Param(0),PathPart::Literal(\"/issues/\"),PathPart::Param(1),]"),
        "{code}"
    );
}

#[test]
fn a_path_parameter_that_contradicts_the_template_is_refused() {
    let mut file = tool(
        "gitlab_issue",
        r#"["core"]"#,
        "returns = \"issue[]\"\nparams = [\n  { name = \"issue_iid\", type = \"integer\", required = true, doc = \"I.\" },\n  { name = \"note_id\", type = \"integer\", in = \"path\", doc = \"N.\" },\n  { name = \"board_id\", type = \"integer\", in = \"body\", doc = \"B.\" },\n]",
    );
    file = file.replace(
        "/projects/{project_id}/issues\"",
        "/projects/{project_id}/issues/{issue_iid}/boards/{board_id}/{list_id}\"",
    );
    let problems = problems(&[("gitlab_issue", file)]);
    let file = "catalog/gitlab_issue.toml";
    assert_eq!(
        problems,
        [
            problem(
                file,
                "action `list` param `note_id`",
                Some("in"),
                "`in = \"path\"` is never written: a parameter is in the path exactly when the action's `http` names it as a {placeholder}"
            ),
            problem(
                file,
                "action `list` param `issue_iid`",
                Some("required"),
                "is a placeholder of the path ({issue_iid}), always required: remove `required`"
            ),
            problem(
                file,
                "action `list` param `board_id`",
                Some("in"),
                "is a placeholder of the path ({board_id}), so it goes in the path, not the body"
            ),
            problem(
                file,
                "action `list`",
                Some("http"),
                "placeholder {list_id} has no parameter (declare it, or `use` it)"
            ),
        ]
    );
}

#[test]
fn a_tool_files_own_params_come_before_the_shared_ones() {
    let mut file = tool(
        "gitlab_snippet",
        r#"["core"]"#,
        "returns = \"issue[]\"\nuse = [\"project_id\", \"snippet_id\", \"page\"]",
    );
    file = file.replace("use = [\"project_id\"]\n", "");
    file = file.replace(
        "/projects/{project_id}/issues\"",
        "/projects/{project_id}/snippets/{snippet_id}\"",
    );
    file = file.replace(
        "[[actions]]",
        "[params.snippet_id]\ntype = \"integer\"\ndoc = \"The snippet's id.\"\n\n[params.page]\ntype = \"string\"\ndoc = \"This file's page.\"\n\n[[actions]]",
    );
    let code = compiled(&[("gitlab_snippet", file.clone())]).code;
    assert!(
        param_spec(&code, "snippet_id").contains("location: Location::Path, required: true,"),
        "{code}"
    );
    assert!(
        param_spec(&code, "page").contains("doc: \"This file's page.\""),
        "{code}"
    );

    // A parameter of the file no action uses, and a `use` found nowhere.
    let file = file.replace("\"snippet_id\", \"page\"]", "\"snippet_id\", \"pgae\"]");
    assert_eq!(
        problems(&[("gitlab_snippet", file)]),
        [
            problem(
                "catalog/gitlab_snippet.toml",
                "param `page`",
                None,
                "is declared in this file's [params] but no action `use`s it"
            ),
            problem(
                "catalog/gitlab_snippet.toml",
                "action `list`",
                Some("use"),
                "`pgae` is a parameter of neither this file's [params] nor catalog/_shared.toml"
            ),
        ]
    );
}

#[test]
fn a_mistake_in_a_shared_parameter_is_reported_once_where_it_is_declared() {
    let sources = {
        let mut s = catalog(&[
            (
                "gitlab_issue",
                tool("gitlab_issue", r#"["core"]"#, r#"returns = "issue[]""#),
            ),
            (
                "gitlab_label",
                tool("gitlab_label", r#"["core"]"#, r#"returns = "issue[]""#),
            ),
        ]);
        s.files.insert(
            "_shared.toml".into(),
            SHARED.replace("doc = \"Project.\"", "required = true\ndoc = \"Project.\""),
        );
        s
    };
    assert_eq!(
        compile_sources(&sources, None).expect_err("refused").0,
        [problem(
            "catalog/_shared.toml",
            "param `project_id`",
            Some("required"),
            "is a placeholder of the path ({project_id}), always required: remove `required`"
        )]
    );
}

#[test]
fn embedded_values_are_json_even_with_control_characters() {
    let value = toml::Value::String("a\u{1b}b\"c\\d\u{7f}é\n".into());
    let text = json::toml_to_json(&value).unwrap();
    let back: serde_json::Value = serde_json::from_str(&text).expect("JSON text");
    assert_eq!(back, serde_json::json!("a\u{1b}b\"c\\d\u{7f}é\n"));
    // Rust's Debug form, which the build once wrote, is not JSON.
    assert!(serde_json::from_str::<serde_json::Value>(&format!("{:?}", "a\u{1b}b")).is_err());
    let array = toml::Value::Array(vec![toml::Value::Integer(1), toml::Value::Boolean(true)]);
    assert_eq!(json::toml_to_json(&array).unwrap(), "[1,true]");
    assert!(json::toml_to_json(&toml::Value::Table(Default::default())).is_err());
}

#[test]
fn the_web_url_parameter_is_declared_once_in_shared_and_used_by_no_action() {
    let mut sources = catalog(&[(
        "gitlab_issue",
        tool(
            "gitlab_issue",
            r#"["core"]"#,
            "returns = \"issue[]\"\nparams = [\n  { name = \"link\", type = \"string\", role = \"web_url\", doc = \"A link.\" },\n]",
        ),
    )]);
    let shared = sources.files.get_mut("_shared.toml").unwrap();
    shared.push_str(
        "\n[params.url]\ntype = \"string\"\nrole = \"web_url\"\ndoc = \"A web URL.\"\n\n[params.web]\ntype = \"integer\"\nrole = \"web_url\"\ndoc = \"Another.\"\n",
    );
    let problems = compile_sources(&sources, None).expect_err("refused").0;
    assert_eq!(
        problems,
        [
            problem(
                "catalog/_shared.toml",
                "param `web`",
                Some("type"),
                "the web URL parameter is a string"
            ),
            problem(
                "catalog/_shared.toml",
                "param `web`",
                Some("role"),
                "`url` is already the web URL parameter"
            ),
            problem(
                "catalog/gitlab_issue.toml",
                "action `list` param `link`",
                Some("role"),
                "the web URL parameter is declared once, in _shared.toml"
            ),
        ]
    );

    let mut sources = catalog(&[(
        "gitlab_issue",
        tool(
            "gitlab_issue",
            r#"["core"]"#,
            "returns = \"issue[]\"\nuse = [\"project_id\", \"url\"]",
        ),
    )]);
    let shared = sources.files.get_mut("_shared.toml").unwrap();
    shared
        .push_str("\n[params.url]\ntype = \"string\"\nrole = \"web_url\"\ndoc = \"A web URL.\"\n");
    // (`use` given twice in one entry is TOML's own refusal: replace it.)
    let text = sources.files.get_mut("gitlab_issue.toml").unwrap();
    *text = text.replacen("use = [\"project_id\"]\n", "", 1);
    let problems = compile_sources(&sources, None).expect_err("refused").0;
    assert_eq!(
        problems,
        [problem(
            "catalog/gitlab_issue.toml",
            "action `list`",
            Some("use"),
            "`url` is the web URL parameter, which every action with a project parameter takes without naming it"
        )]
    );
}

#[test]
fn roles_are_written_into_the_parameters_and_the_web_url_static() {
    let mut sources = catalog(&[(
        "gitlab_issue",
        tool("gitlab_issue", r#"["core"]"#, r#"returns = "issue[]""#),
    )]);
    let shared = sources.files.get_mut("_shared.toml").unwrap();
    *shared = shared.replacen(
        "[params.project_id]\ntype = \"string\"\n",
        "[params.project_id]\ntype = \"string\"\nrole = \"project\"\n",
        1,
    );
    let code = compile_sources(&sources, None).unwrap().code;
    assert!(
        code.contains("role: Some(Role::Project), doc: \"Project.\""),
        "{code}"
    );
    assert!(
        code.contains("pub static WEB_URL: Option<&ParamSpec> = None;"),
        "{code}"
    );
    shared_push(
        &mut sources,
        "\n[params.url]\ntype = \"string\"\nrole = \"web_url\"\ndoc = \"A web URL.\"\n",
    );
    let code = compile_sources(&sources, None).unwrap().code;
    assert!(
        code.contains("pub static WEB_URL: Option<&ParamSpec> = Some(&ParamSpec { name: \"url\""),
        "{code}"
    );
    assert!(
        code.contains("role: Some(Role::WebUrl), doc: \"A web URL.\" });\n"),
        "{code}"
    );
}

fn shared_push(sources: &mut Sources, text: &str) {
    sources
        .files
        .get_mut("_shared.toml")
        .unwrap()
        .push_str(text);
}

/// A small schema and documents for GraphQL actions.
const SCHEMA: &str = r#"
type Query { namespace(fullPath: ID!): Namespace }
type Namespace { workItem(iid: String!): WorkItem }
type WorkItem { iid: String! title: String }
type Mutation { workItemUpdate(input: WorkItemUpdateInput!): WorkItemUpdatePayload }
input WorkItemUpdateInput { id: WorkItemID! title: String stateEvent: WorkItemStateEvent }
enum WorkItemStateEvent { CLOSE REOPEN }
scalar WorkItemID
type WorkItemUpdatePayload { errors: [String!]! workItem: WorkItem }
"#;

const GET: &str = "# One item.\nquery get($fullPath: ID!, $iid: String!) {\n  namespace(fullPath: $fullPath) { workItem(iid: $iid) { iid title } }\n}\n";
const UPDATE: &str = "mutation update($input: WorkItemUpdateInput!) { workItemUpdate(input: $input) { errors workItem { iid } } }";

/// A GraphQL tool file: one action on document `document`, plus `extra`
/// keys; its `variables` table last.
fn graphql_tool(document: &str, extra: &str, variables: &str) -> String {
    format!(
        r#"
name = "gitlab_work_item"
title = "Work items"
toolsets = ["core"]
icon = "issue"
summary = "Work items."
example = '{{"action": "get", "params": {{"project_id": "g/p", "iid": 1}}}}'

[[actions]]
name = "get"
summary = "Get one."
graphql = "{document}"
destructive = false
idempotent = true
returns = "issue"
use = ["project_id"]
{extra}
[actions.variables]
{variables}
"#
    )
}

fn graphql_catalog(tool: String) -> Sources {
    let mut sources = catalog(&[("gitlab_work_item", tool)]);
    let shared = sources.files.get_mut("_shared.toml").unwrap();
    *shared = shared.replacen(
        "[params.project_id]\ntype = \"string\"\n",
        "[params.project_id]\ntype = \"string\"\nrole = \"project\"\n",
        1,
    );
    sources.schema = Some(SCHEMA.into());
    sources.documents = [
        ("get".to_string(), GET.to_string()),
        ("update".to_string(), UPDATE.to_string()),
        ("broken".to_string(), "query {".to_string()),
    ]
    .into();
    sources
}

#[test]
fn a_graphql_action_is_compiled_with_its_document_operation_and_variables() {
    let sources = graphql_catalog(graphql_tool(
        "get",
        "read_only = true\nanswer = [\"namespace.workItem\"]\nparams = [{ name = \"iid\", type = \"integer\", required = true, doc = \"The iid.\" }]",
        "fullPath = { resolve = \"namespace\" }\niid = \"iid\"",
    ));
    let problems = compile_sources(&sources, None).map(|_| ()).unwrap_err();
    // Only the broken document, on its own file.
    assert_eq!(problems.0.len(), 1, "{problems}");
    assert_eq!(problems.0[0].file, "catalog/graphql/broken.graphql");
    assert!(
        problems.0[0].message.starts_with("does not parse: "),
        "{problems}"
    );

    let mut sources = sources;
    sources.documents.remove("broken");
    let code = compile_sources(&sources, None).unwrap().code;
    assert!(
        code.contains("pub static GET: StoredDocument = StoredDocument { name: \"get\", operation: Operation::Query, operation_name: Some(\"get\"), root_fields: &[\"namespace\"], text: \"query get("),
        "the header comment is left out: {code}"
    );
    assert!(
        code.contains("route: Route::Graphql(GraphqlRoute { operation: Operation::Query, document: Some(&documents::GET), handler: None, variables: &[VariableSpec { path: &[\"fullPath\"], param: None, feed: Feed::Resolve(Resolver::Namespace) },VariableSpec { path: &[\"iid\"], param: Some(1), feed: Feed::Text },], answer: &[&[\"namespace\", \"workItem\"],] })"),
        "an integer sent as the String the document declares: {code}"
    );
}

#[test]
fn every_graphql_mistake_is_named_with_its_action_and_key() {
    let cases = [
        (
            graphql_tool("gone", "read_only = true\nanswer = [\"x\"]", ""),
            "graphql",
            "`gone` names no document of catalog/graphql/ (documents: get, update)",
        ),
        (
            graphql_tool(
                "get",
                "read_only = false\nanswer = [\"namespace.workItem\"]\nparams = [{ name = \"iid\", type = \"integer\", required = true, doc = \"The iid.\" }]",
                "fullPath = { resolve = \"namespace\" }\niid = \"iid\"",
            ),
            "read_only",
            "`get` is a query: the action is read-only",
        ),
        (
            graphql_tool(
                "update",
                "read_only = true\nanswer = [\"workItemUpdate.workItem\"]\nparams = [{ name = \"iid\", type = \"integer\", required = true, doc = \"The iid.\" }]",
                "\"input.id\" = { param = \"iid\", resolve = \"work_item_id\" }",
            ),
            "read_only",
            "`update` is a mutation: the action is not read-only",
        ),
        (
            graphql_tool(
                "get",
                "read_only = true\nanswer = [\"namespace.workItem\"]\nparams = [{ name = \"iid\", type = \"integer\", required = true, doc = \"The iid.\" }]",
                "fullPath = { resolve = \"namespace\" }\niid = \"iid\"\nnope = \"iid\"",
            ),
            "variables",
            "`$nope` is not a variable of the document (it declares $fullPath, $iid)",
        ),
        (
            graphql_tool(
                "get",
                "read_only = true\nanswer = [\"namespace.workItem\"]",
                "fullPath = { resolve = \"namespace\" }",
            ),
            "variables",
            "the document requires `$iid` and no parameter feeds it",
        ),
        (
            graphql_tool(
                "get",
                "read_only = true\nanswer = [\"namespace.items\"]\nparams = [{ name = \"iid\", type = \"integer\", required = true, doc = \"The iid.\" }]",
                "fullPath = { resolve = \"namespace\" }\niid = \"iid\"",
            ),
            "answer",
            "`namespace.items` is not a path of fields `get` selects",
        ),
        (
            graphql_tool(
                "update",
                "read_only = false\nanswer = [\"workItemUpdate.workItem\"]\nparams = [{ name = \"iid\", type = \"integer\", required = true, doc = \"The iid.\" }, { name = \"state_event\", type = \"string\", enum = [\"close\", \"reopen\"], doc = \"State.\" }]",
                "\"input.id\" = { param = \"iid\", resolve = \"work_item_id\" }\n\"input.stateEvent\" = { param = \"state_event\", values = { close = \"CLOSE\" } }",
            ),
            "variables",
            "`values` maps close; the parameter allows close, reopen",
        ),
        (
            graphql_tool(
                "update",
                "read_only = false\nanswer = [\"workItemUpdate.workItem\"]\nparams = [{ name = \"iid\", type = \"integer\", required = true, doc = \"The iid.\" }]",
                "\"input.id\" = { param = \"iid\", resolve = \"work_item_id\" }\n\"input.titel\" = \"iid\"",
            ),
            "variables",
            "input `WorkItemUpdateInput` has no field `titel` (fields: id, stateEvent, title)",
        ),
        (
            graphql_tool(
                "update",
                "read_only = false\nanswer = [\"workItemUpdate.workItem\"]\nparams = [{ name = \"iid\", type = \"integer\", required = true, doc = \"The iid.\" }]",
                "\"input.id\" = { param = \"iid\", resolve = \"label_ids\" }",
            ),
            "variables",
            "resolver LabelIds takes a parameter of type array, and `iid` is integer",
        ),
    ];
    for (tool, field, message) in cases {
        let mut sources = graphql_catalog(tool);
        sources.documents.remove("broken");
        let problems = compile_sources(&sources, None).map(|_| ()).unwrap_err().0;
        assert!(
            problems
                .iter()
                .any(|p| p.file == "catalog/gitlab_work_item.toml"
                    && p.item.starts_with("action `get`")
                    && p.field == Some(field)
                    && p.message == message),
            "{message:?} not among {problems:#?}"
        );
    }
}
