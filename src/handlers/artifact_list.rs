//! `artifact_list`: a job's artifacts archive
//! (https://docs.gitlab.com/api/job_artifacts/#get-job-artifacts) is a zip;
//! it is listed from its central directory, never shown.

use crate::dispatch::ValidatedCall;
use crate::gitlab::Response;
use crate::render::{self, Output};

/// The archive's files, from its central directory.
pub fn answer(call: &ValidatedCall, response: &Response, options: render::Options) -> Output {
    render::archive_listing(call, response, options)
}
