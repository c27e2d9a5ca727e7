//! The GraphQL documents gitlab-mcp sends (catalog/graphql/*.graphql),
//! checked with a real validator (apollo-compiler) against the part of
//! GitLab's schema they use (catalog/graphql/gitlab_schema.graphql, copied
//! from GitLab's reference): a field GitLab does not have fails. And the
//! fake GitLab's GraphQL schema is held to that same part, so the fake
//! cannot drift from GitLab.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use apollo_compiler::executable::{Selection, SelectionSet};
use apollo_compiler::schema::ExtendedType;
use apollo_compiler::validation::Valid;
use apollo_compiler::{ExecutableDocument, Schema};

const SCHEMA_FILE: &str = "gitlab_schema.graphql";

fn graphql_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog/graphql")
}

fn gitlab_schema() -> Valid<Schema> {
    let path = graphql_dir().join(SCHEMA_FILE);
    let text = std::fs::read_to_string(&path).expect("the schema file");
    Schema::parse_and_validate(text, path).unwrap_or_else(|e| panic!("{}", e.errors))
}

/// Every stored document, by file name, other than the schema.
fn documents() -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = std::fs::read_dir(graphql_dir())
        .expect("catalog/graphql")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "graphql"))
        .filter(|p| p.file_name().is_some_and(|n| n != SCHEMA_FILE))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).expect("document"))
        })
        .collect();
    found.sort();
    found
}

fn validated(schema: &Valid<Schema>) -> Vec<(String, Valid<ExecutableDocument>)> {
    documents()
        .into_iter()
        .map(|(name, text)| {
            let doc =
                ExecutableDocument::parse_and_validate(schema, text, &name).unwrap_or_else(|e| {
                    panic!("{name} is not valid against GitLab's schema:\n{}", e.errors)
                });
            (name, doc)
        })
        .collect()
}

#[test]
fn every_stored_document_is_valid_against_gitlabs_schema() {
    let schema = gitlab_schema();
    let docs = validated(&schema);
    let names: Vec<&str> = docs.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "graphql_type.graphql",
            "graphql_type_names.graphql",
            "note_create.graphql",
            "work_item_add_children.graphql",
            "work_item_children.graphql",
            "work_item_create.graphql",
            "work_item_delete.graphql",
            "work_item_get.graphql",
            "work_item_ids.graphql",
            "work_item_label_ids.graphql",
            "work_item_link.graphql",
            "work_item_notes.graphql",
            "work_item_types.graphql",
            "work_item_unlink.graphql",
            "work_item_update.graphql",
            "work_item_user_ids.graphql",
            "work_items_list.graphql",
        ]
    );
    for (name, doc) in &docs {
        assert_eq!(doc.operations.len(), 1, "{name}: one operation per file");
        let text = std::fs::read_to_string(graphql_dir().join(name)).unwrap();
        assert!(
            text.starts_with("# "),
            "{name}: opens with a comment saying what it is for"
        );
    }
}

#[test]
fn a_field_gitlab_does_not_have_fails_validation() {
    let schema = gitlab_schema();
    let doc = "query($fullPath: ID!, $iid: String!) {
        namespace(fullPath: $fullPath) { workItem(iid: $iid) { iid weight } }
    }";
    let errors = ExecutableDocument::parse_and_validate(&schema, doc, "negative.graphql")
        .expect_err("`weight` is a widget's field, not WorkItem's")
        .errors
        .to_string();
    assert!(
        errors.contains("type `WorkItem` does not have a field `weight`"),
        "{errors}"
    );
}

#[test]
fn an_argument_gitlab_does_not_have_fails_validation() {
    let schema = gitlab_schema();
    let doc = "query($p: ID!) { namespace(fullPath: $p) { workItems(first: 5) { count } } }";
    let errors = ExecutableDocument::parse_and_validate(&schema, doc, "negative.graphql")
        .expect_err("Namespace has no workItems in GitLab 17.11")
        .errors
        .to_string();
    assert!(errors.contains("`workItems`"), "{errors}");
}

/// The (type, field) pairs and (type, field, argument) triples the
/// documents use.
#[derive(Default)]
struct Used {
    fields: BTreeSet<(String, String)>,
    args: BTreeSet<(String, String, String)>,
}

impl Used {
    fn visit(&mut self, set: &SelectionSet) {
        for selection in &set.selections {
            match selection {
                Selection::Field(field) => {
                    let parent = set.ty.to_string();
                    for arg in &field.arguments {
                        let key = (parent.clone(), field.name.to_string(), arg.name.to_string());
                        self.args.insert(key);
                    }
                    self.fields.insert((parent, field.name.to_string()));
                    self.visit(&field.selection_set);
                }
                Selection::InlineFragment(inline) => self.visit(&inline.selection_set),
                Selection::FragmentSpread(_) => {}
            }
        }
    }
}

fn used(docs: &[(String, Valid<ExecutableDocument>)]) -> Used {
    let mut used = Used::default();
    for (_, doc) in docs {
        for op in doc.operations.iter() {
            used.visit(&op.selection_set);
        }
        for fragment in doc.fragments.values() {
            used.visit(&fragment.selection_set);
        }
    }
    used
}

#[test]
fn the_schema_file_holds_only_what_the_documents_select() {
    let schema = gitlab_schema();
    let used = used(&validated(&schema));
    let mut unused = Vec::new();
    for (name, ty) in schema.types.iter().filter(|(_, t)| !t.is_built_in()) {
        let fields = match ty {
            ExtendedType::Object(o) => &o.fields,
            ExtendedType::Interface(i) => &i.fields,
            _ => continue,
        };
        for (field, def) in fields {
            // An interface's fields, and its implementations', are owed.
            let owed = field == "type" && name.starts_with("WorkItemWidget");
            if owed {
                continue;
            }
            let key = (name.to_string(), field.to_string());
            if !used.fields.contains(&key) {
                unused.push(format!("{name}.{field}"));
            }
            for arg in &def.arguments {
                if !used
                    .args
                    .contains(&(key.0.clone(), key.1.clone(), arg.name.to_string()))
                {
                    unused.push(format!("{name}.{field}({})", arg.name));
                }
            }
        }
    }
    assert_eq!(
        unused,
        Vec::<String>::new(),
        "declared but selected by no document"
    );
}

/// A type's members as text, comparable across the two schemas: fields
/// with their types and arguments, input fields, enum values.
fn members(ty: &ExtendedType) -> BTreeSet<String> {
    let field = |name: &str, def: &apollo_compiler::schema::FieldDefinition| {
        let mut args: Vec<String> = def
            .arguments
            .iter()
            .map(|a| format!("{}: {}", a.name, a.ty))
            .collect();
        args.sort();
        format!("{name}({}): {}", args.join(", "), def.ty)
    };
    match ty {
        ExtendedType::Object(o) => o.fields.iter().map(|(n, d)| field(n, d)).collect(),
        ExtendedType::Interface(i) => i.fields.iter().map(|(n, d)| field(n, d)).collect(),
        ExtendedType::InputObject(i) => i
            .fields
            .iter()
            .map(|(n, d)| format!("{n}: {}", d.ty))
            .collect(),
        ExtendedType::Enum(e) => e.values.keys().map(|v| v.to_string()).collect(),
        ExtendedType::Scalar(_) => BTreeSet::from(["scalar".to_string()]),
        ExtendedType::Union(u) => u.members.iter().map(|m| m.to_string()).collect(),
    }
}

#[test]
fn the_fake_serves_gitlabs_types_with_gitlabs_fields_arguments_and_values() {
    let gitlab = gitlab_schema();
    let sdl = fake_gitlab::graphql::sdl();
    let fake = Schema::parse_and_validate(sdl.as_str(), "fake.graphql")
        .unwrap_or_else(|e| panic!("the fake's SDL:\n{}\n{sdl}", e.errors));
    let mut differences = Vec::new();
    for (name, ty) in gitlab.types.iter().filter(|(_, t)| !t.is_built_in()) {
        match fake.types.get(name) {
            None => differences.push(format!("{name}: missing")),
            Some(theirs) => {
                let (want, got) = (members(ty), members(theirs));
                for m in want.difference(&got) {
                    differences.push(format!("{name}: GitLab has `{m}`"));
                }
                for m in got.difference(&want) {
                    differences.push(format!("{name}: the fake has `{m}`"));
                }
            }
        }
    }
    let implemented = |s: &Schema, name: &str| -> BTreeSet<String> {
        s.implementers_map()
            .get(name)
            .map(|i| i.objects.iter().map(|o| o.to_string()).collect())
            .unwrap_or_default()
    };
    assert_eq!(
        implemented(&fake, "WorkItemWidget"),
        implemented(&gitlab, "WorkItemWidget"),
        "the widgets that implement WorkItemWidget"
    );
    assert_eq!(differences, Vec::<String>::new());
}
