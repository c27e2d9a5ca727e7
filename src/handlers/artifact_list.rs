//! `artifact_list`: a job's artifacts archive
//! (https://docs.gitlab.com/api/job_artifacts/#get-job-artifacts) is a zip;
//! it is listed from its central directory, never shown.

use super::Handler;
use crate::dispatch::ValidatedCall;
use crate::gitlab::Response;
use crate::render::{self, Output};

pub struct ArtifactList;

impl Handler for ArtifactList {
    fn answer(
        &self,
        call: &ValidatedCall,
        response: &Response,
        options: render::Options,
    ) -> Output {
        render::archive_listing(call, response, options)
    }
}
