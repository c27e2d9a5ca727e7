//! `triage` reads one pipeline, named one of three ways: its
//! `pipeline_id`, a merge request whose head pipeline it is
//! (`merge_request_iid`), or a ref whose latest pipeline it is (`ref`).
//! The catalog says at least one is needed (`one_of`); this check says
//! not two: the first way given is paired with each other one given.

use crate::dispatch::Arg;
use crate::dispatch::error::ParamProblem;

/// The ways of naming the pipeline, in the catalog's order.
const WAYS: [&str; 3] = ["pipeline_id", "merge_request_iid", "ref"];

/// More than one way given.
pub fn problems(args: &[Arg]) -> Vec<ParamProblem> {
    let given: Vec<&'static str> = WAYS
        .into_iter()
        .filter(|way| {
            args.iter()
                .any(|a| a.spec.name == *way && !a.value.is_null())
        })
        .collect();
    match given.split_first() {
        Some((first, others)) => others
            .iter()
            .map(|other| ParamProblem::BothGiven {
                names: [first, other],
            })
            .collect(),
        None => Vec::new(),
    }
}
