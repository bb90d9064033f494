//! OpenCorvus collaboration definitions (package-format §9): several squads' workflows run as
//! the stages of one delivery, connected by evidence keys. The reference stops at the first
//! broken rule; squad reports them all.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::document::{Document, join};
use super::shape::fields::Fields;
use super::squad::Squad;
use crate::diag::{Code, Diagnostic};
use crate::manifest::{IdKind, id_problem};

const TOP_LEVEL: [&str; 7] = [
    "schema_version",
    "stage_execution",
    "id",
    "label",
    "inputs",
    "outputs",
    "stages",
];
const STAGE_KEYS: [&str; 6] = [
    "id",
    "squad_id",
    "workflow_id",
    "depends_on",
    "consumes",
    "produces",
];

/// Checks a collaboration. With `squads`, stage squad and workflow ids are checked against
/// them (COL-7, COL-10); without, once the stages could be read, a note says
/// they were not.
pub fn check_document(document: &Document, squads: Option<&[Squad]>, out: &mut Vec<Diagnostic>) {
    let value = &document.value;
    let mut fields = Fields::new(document, out);
    // COL-S: the definition is a TypeScript interface, so unknown members are only warnings.
    let Some(top) = fields.object("", value, &TOP_LEVEL, &TOP_LEVEL, true) else {
        return;
    };
    if let Some(version) = top.get("schema_version")
        && version.as_f64() != Some(1.0)
    {
        let diagnostic = document.at(
            Code::CollabSchemaVersion,
            "/schema_version",
            format!(
                "schema_version must equal 1, found {}",
                super::shape::compact(version)
            ),
        );
        fields.push(diagnostic);
    }
    if let Some(execution) = top.get("stage_execution")
        && execution.as_str() != Some("mission_task")
    {
        let diagnostic = document
            .at(
                Code::CollabStageExecution,
                "/stage_execution",
                format!(
                    "stage_execution must equal \"mission_task\", found {}",
                    super::shape::compact(execution)
                ),
            )
            .help("each stage is one Mission-owned Task running one squad's whole workflow");
        fields.push(diagnostic);
    }
    if let Some(id) = top.get("id") {
        canonical(&mut fields, "/id", id);
    }
    if let Some(label) = top.get("label")
        && let Some(text) = fields.string("/label", label, 0, None)
        && text.trim().is_empty()
    {
        let diagnostic = document.at(
            Code::CollabLabel,
            "/label",
            "the collaboration label is blank",
        );
        fields.push(diagnostic);
    }
    let inputs = top
        .get("inputs")
        .map(|inputs| keys(&mut fields, "/inputs", inputs))
        .unwrap_or_default();
    let outputs = top
        .get("outputs")
        .map(|outputs| keys(&mut fields, "/outputs", outputs))
        .unwrap_or_default();
    let Some(stages) = top
        .get("stages")
        .and_then(|stages| fields.array("/stages", stages, 0, None))
    else {
        return;
    };
    if stages.is_empty() {
        let diagnostic = document.at(
            Code::CollabNoStages,
            "/stages",
            "a collaboration requires at least one stage",
        );
        fields.push(diagnostic);
    }
    let squads_by_id: Option<HashMap<&str, &Squad>> = squads.map(|squads| {
        squads
            .iter()
            .map(|squad| (squad.id.as_str(), squad))
            .collect()
    });
    let input_set: HashSet<String> = inputs.iter().map(|(_, key)| key.clone()).collect();
    // Stage id → the evidence it and the stages it depends on (transitively) produce, as a set
    // of bits over the produced keys, so a stage's reach is the union of its dependencies'
    // (linear in the edges, where copying sets of keys grew with the square of a chain).
    let mut earlier: HashMap<String, Reach> = HashMap::new();
    let mut key_bits = KeyBits::default();
    // The reach sets take at most stages × produced keys bits; past a bound no real
    // collaboration comes near, evidence is not traced (and that is said) rather than letting a
    // 16 MiB document take gigabytes.
    let produced: usize = stages
        .iter()
        .filter_map(|stage| stage.get("produces").and_then(Value::as_array))
        .map(Vec::len)
        .sum();
    let trace = stages.len().saturating_mul(produced) <= MAX_REACH_BITS;
    if !trace {
        let diagnostic = document.at(
            Code::DocumentTooLarge,
            "/stages",
            format!(
                "{} stages producing {produced} evidence keys are more than squad traces; evidence connections were not checked",
                stages.len()
            ),
        );
        fields.push(diagnostic);
    }
    // Evidence key → the stage that produced it first.
    let mut producers: HashMap<String, String> = HashMap::new();
    for (index, stage) in stages.iter().enumerate() {
        let pointer = join("/stages", index);
        let Some(map) = fields.object(&pointer, stage, &STAGE_KEYS, &STAGE_KEYS, true) else {
            continue;
        };
        let id = map
            .get("id")
            .and_then(|id| canonical(&mut fields, &join(&pointer, "id"), id));
        let squad_id = map
            .get("squad_id")
            .and_then(|squad| canonical(&mut fields, &join(&pointer, "squad_id"), squad));
        let workflow_id = map
            .get("workflow_id")
            .and_then(|workflow| canonical(&mut fields, &join(&pointer, "workflow_id"), workflow));
        if let Some(id) = &id
            && earlier.contains_key(id)
        {
            let diagnostic = document.at(
                Code::CollabDuplicate,
                &join(&pointer, "id"),
                format!("duplicate collaboration stage id `{id}`"),
            );
            fields.push(diagnostic);
        }
        let depends_on = map
            .get("depends_on")
            .map(|list| keys(&mut fields, &join(&pointer, "depends_on"), list))
            .unwrap_or_default();
        let mut available = Reach::default();
        for (item_pointer, dependency) in &depends_on {
            match earlier.get(dependency) {
                Some(theirs) => available.union(theirs),
                None => {
                    let diagnostic = document
                        .at(
                            Code::CollabDependsOn,
                            item_pointer,
                            format!("stage depends on unknown or later stage `{dependency}`"),
                        )
                        .help("stages run in array order; a stage may depend only on stages listed before it");
                    fields.push(diagnostic);
                }
            }
        }
        if let (Some(squads), Some(squad_id)) = (&squads_by_id, &squad_id) {
            match squads.get(squad_id.as_str()) {
                None => {
                    let mut known: Vec<&str> = squads.keys().copied().collect();
                    known.sort_unstable();
                    let diagnostic = document
                        .at(
                            Code::CollabUnknownSquad,
                            &join(&pointer, "squad_id"),
                            format!("stage names squad `{squad_id}`, which was not supplied"),
                        )
                        .help(format!("supplied squads: {}", known.join(", ")));
                    fields.push(diagnostic);
                }
                Some(squad) => {
                    if let Some(workflow_id) = &workflow_id
                        && squad.workflow(workflow_id).is_none()
                    {
                        let known: Vec<&str> =
                            squad.workflows.iter().map(|w| w.id.as_str()).collect();
                        let diagnostic = document
                            .at(
                                Code::CollabUnknownWorkflow,
                                &join(&pointer, "workflow_id"),
                                format!("squad `{squad_id}` has no workflow `{workflow_id}`"),
                            )
                            .help(if known.is_empty() {
                                "the squad has no workflow (virtual_workflows is empty), so it cannot be a stage".to_owned()
                            } else {
                                format!("its workflows: {}", known.join(", "))
                            });
                        fields.push(diagnostic);
                    }
                }
            }
        }
        let consumes = map
            .get("consumes")
            .map(|list| keys(&mut fields, &join(&pointer, "consumes"), list))
            .unwrap_or_default();
        for (item_pointer, key) in &consumes {
            let reached = key_bits.index(key).is_some_and(|bit| available.has(bit));
            if trace && !input_set.contains(key) && !reached {
                let diagnostic = document
                    .at(
                        Code::CollabEvidence,
                        item_pointer,
                        format!("stage consumes disconnected evidence `{key}`"),
                    )
                    .help("consume a collaboration input or evidence produced by a stage this one depends on (directly or transitively)");
                fields.push(diagnostic);
            }
        }
        let produces_pointer = join(&pointer, "produces");
        let produces = map
            .get("produces")
            .map(|list| keys(&mut fields, &produces_pointer, list));
        if produces.as_ref().is_some_and(Vec::is_empty) {
            let diagnostic = document.at(
                Code::CollabNoEvidence,
                &produces_pointer,
                "stage must produce visible evidence",
            );
            fields.push(diagnostic);
        }
        let produces = produces.unwrap_or_default();
        let stage_name = id.clone().unwrap_or_else(|| format!("#{index}"));
        for (item_pointer, key) in &produces {
            match producers.get(key) {
                Some(first) if *first != stage_name => {
                    let diagnostic = document.at(
                        Code::CollabDoubleProducer,
                        item_pointer,
                        format!("collaboration evidence `{key}` is produced by both `{first}` and `{stage_name}`"),
                    );
                    fields.push(diagnostic);
                }
                _ => {
                    producers.insert(key.clone(), stage_name.clone());
                }
            }
        }
        if let Some(id) = id
            && !earlier.contains_key(&id)
        {
            let mut reach = available;
            if trace {
                for (_, key) in produces {
                    reach.set(key_bits.add(key));
                }
            }
            earlier.insert(id, reach);
        }
    }
    for (item_pointer, key) in &outputs {
        if !producers.contains_key(key) {
            let mut diagnostic = document.at(
                Code::CollabOutput,
                item_pointer,
                format!("collaboration output `{key}` is not produced by any stage"),
            );
            if input_set.contains(key) {
                diagnostic = diagnostic.help("an external input alone does not satisfy an output");
            }
            fields.push(diagnostic);
        }
    }
    if squads.is_none() {
        fields.push(squads_unchecked());
    }
}

/// The note for a collaboration checked without its squads (`squad validate`, `squad lint`).
fn squads_unchecked() -> Diagnostic {
    Diagnostic::new(
        Code::CollabSquadsUnchecked,
        super::document::FILE,
        "stage squad and workflow ids were not checked against real manifests",
    )
    .help("`squad collab validate FILE --squad PKG...` checks them")
}

/// A canonical identifier (ID-1, at most 64 characters), or a diagnostic.
fn canonical(fields: &mut Fields, pointer: &str, value: &Value) -> Option<String> {
    let text = fields.string(pointer, value, 0, None)?;
    match id_problem(text, IdKind::Plain) {
        None => Some(text.to_owned()),
        Some((_, problem)) => {
            let diagnostic = fields
                .doc
                .at(Code::CollabId, pointer, format!("not a canonical lower-kebab-case identifier: {problem}"))
                .help("identifiers match ^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$ and have at most 64 characters");
            fields.push(diagnostic);
            None
        }
    }
}

/// A list of canonical identifiers without duplicates; returns the valid ones with pointers.
fn keys(fields: &mut Fields, pointer: &str, value: &Value) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = Vec::new();
    let Some(items) = fields.array(pointer, value, 0, None) else {
        return found;
    };
    // Looked up in a set: a list of n keys costs n, not n².
    let mut seen: HashSet<String> = HashSet::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let item_pointer = join(pointer, index);
        if let Some(key) = canonical(fields, &item_pointer, item) {
            if !seen.insert(key.clone()) {
                let diagnostic = fields.doc.at(
                    Code::CollabDuplicate,
                    &item_pointer,
                    format!("`{pointer}` contains duplicate identifier `{key}`"),
                );
                fields.push(diagnostic);
            } else {
                found.push((item_pointer, key));
            }
        }
    }
    found
}

/// COL-7: supplied squads have distinct ids. Returns a message per duplicate.
pub fn duplicate_squads(squads: &[Squad]) -> Vec<String> {
    let mut seen = HashSet::new();
    squads
        .iter()
        .filter(|squad| !seen.insert(squad.id.as_str()))
        .map(|squad| format!("duplicate expert squad manifest id `{}`", squad.id))
        .collect()
}

/// 2^31 bits: 256 MiB of reach sets at most.
const MAX_REACH_BITS: usize = 1 << 31;

/// Produced evidence keys, numbered in the order first seen.
#[derive(Default)]
struct KeyBits(HashMap<String, usize>);

impl KeyBits {
    fn index(&self, key: &str) -> Option<usize> {
        self.0.get(key).copied()
    }

    fn add(&mut self, key: String) -> usize {
        let next = self.0.len();
        *self.0.entry(key).or_insert(next)
    }
}

/// A set of evidence keys, by their [`KeyBits`] number.
#[derive(Default, Clone)]
struct Reach(Vec<u64>);

impl Reach {
    fn has(&self, bit: usize) -> bool {
        self.0
            .get(bit / 64)
            .is_some_and(|word| word & (1 << (bit % 64)) != 0)
    }

    fn set(&mut self, bit: usize) {
        if self.0.len() <= bit / 64 {
            self.0.resize(bit / 64 + 1, 0);
        }
        self.0[bit / 64] |= 1 << (bit % 64);
    }

    fn union(&mut self, other: &Reach) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (mine, theirs) in self.0.iter_mut().zip(&other.0) {
            *mine |= theirs;
        }
    }
}
