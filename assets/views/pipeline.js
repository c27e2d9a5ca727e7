// The pipeline: its stages in order, each with its jobs and their statuses.
// A failed job opens the excerpt of its log around the first error, from
// `gitlab_pipeline triage` (read once, for every failed job). Any action
// of the tool that names one pipeline (its id, a job of it, a merge
// request's or a ref's latest for triage, latest and wait) opens it; for
// the others the view says the answer is in the conversation.

const TOOL = "gitlab_pipeline";
const PIPELINE_FIELDS = ["id", "project_id", "status", "ref", "sha", "source"];
const JOB_FIELDS = ["id", "name", "stage", "status", "allow_failure", "failure_reason"];
// The triage's room for every failed job's excerpt together.
const TRIAGE_BYTES = 16000;

const view = { project: null, pipeline: null, triage: null };

start("gitlab-mcp pipeline", load);

const one = async (tool, action, params, fields) => gitlabJson(await call(tool, { action, params, fields })).values[0] || {};

// The pipeline a call names, as `get` takes it; null when it names none.
async function named(args) {
  const p = args.params || {};
  const project = { project_id: p.project_id };
  if (p.project_id === undefined) return typeof p.url === "string" ? { url: p.url } : null;
  if (p.pipeline_id !== undefined) return { ...project, pipeline_id: p.pipeline_id };
  if (p.job_id !== undefined) {
    const job = await one(TOOL, "job_get", { ...project, job_id: p.job_id }, ["pipeline"]);
    return job.pipeline ? { ...project, pipeline_id: job.pipeline.id } : null;
  }
  if (!["triage", "latest", "wait"].includes(args.action)) return null;
  if (p.merge_request_iid !== undefined) {
    const mr = await one("gitlab_merge_request", "get", { ...project, merge_request_iid: p.merge_request_iid }, ["head_pipeline"]);
    return mr.head_pipeline ? { ...project, pipeline_id: mr.head_pipeline.id } : null;
  }
  const latest = await one(TOOL, "latest", p.ref === undefined ? project : { ...project, ref: p.ref }, ["id"]);
  return latest.id ? { ...project, pipeline_id: latest.id } : null;
}

async function load(args) {
  try {
    say("Reading the pipeline…");
    const which = await named(args);
    if (!which) {
      say(`This call (${args.action || "no action"}) names no single pipeline: its answer is in the conversation.`);
      return;
    }
    const pipeline = await one(TOOL, "get", which, PIPELINE_FIELDS);
    view.pipeline = pipeline;
    view.project = pipeline.project_id === undefined ? which.project_id : pipeline.project_id;
    showHeader(pipeline);
    say("Reading its jobs…");
    const answer = await call(TOOL, { action: "job_list", params: { project_id: view.project, pipeline_id: pipeline.id }, max_items: 500, fields: JOB_FIELDS });
    const jobs = gitlabJson(answer).values;
    showGraph(jobs);
    const failed = jobs.filter((j) => j.status === "failed").length;
    say(`${jobs.length} jobs${failed ? `, ${failed} failed: open one for the excerpt of its log` : ""}.`);
  } catch (e) {
    say(e.message, true);
  }
}

function showHeader(pipeline) {
  document.getElementById("title").textContent = `Pipeline #${pipeline.id}`;
  document.getElementById("facts").replaceChildren(
    statusLabel(pipeline.status),
    el("span", {}, `ref ${pipeline.ref}`),
    el("span", {}, "commit ", el("code", { title: pipeline.sha }, (pipeline.sha || "").slice(0, 8))),
    pipeline.source ? el("span", {}, pipeline.source.replaceAll("_", " ")) : null,
  );
}

// Stages in the order they ran: GitLab creates a pipeline's jobs stage by
// stage, so a stage's smallest job id orders it.
function stagesOf(jobs) {
  const stages = new Map();
  for (const job of [...jobs].sort((a, b) => a.id - b.id)) {
    if (!stages.has(job.stage)) stages.set(job.stage, []);
    stages.get(job.stage).push(job);
  }
  return [...stages];
}

// A stage's status: its worst job's, a failure allowed to fail aside.
function stageStatus(jobs) {
  for (const status of ["failed", "running", "pending", "canceled", "manual", "created", "skipped"]) {
    if (jobs.some((j) => j.status === status && !(status === "failed" && j.allow_failure))) return status;
  }
  return "success";
}

function showGraph(jobs) {
  const graph = document.getElementById("graph");
  graph.replaceChildren();
  graph.setAttribute("aria-label", "Stages and jobs, in order");
  stagesOf(jobs).forEach(([stage, members], index) => {
    if (index) graph.append(el("div", { class: "edge", "aria-hidden": "true" }, "→"));
    const heading = `stage-${index}`;
    graph.append(el("section", { class: "stage", "aria-labelledby": heading },
      el("h2", { id: heading }, stage, " ", statusLabel(stageStatus(members))),
      el("ul", {}, members.map((job) => el("li", {}, jobCard(job))))));
  });
}

function jobCard(job) {
  const body = [
    el("span", { class: "name" }, job.name),
    statusLabel(job.status, job.allow_failure),
    job.failure_reason ? el("span", { class: "muted reason" }, job.failure_reason.replaceAll("_", " ")) : null,
  ];
  if (job.status !== "failed") return el("div", { class: `job ${job.status}`, "data-job": job.id }, body);
  const panel = el("section", { id: `excerpt-${job.id}`, class: "excerpt", "aria-label": `Excerpt of job ${job.name}`, hidden: true });
  document.getElementById("excerpts").append(panel);
  const button = el("button", { class: `job ${job.status}`, "data-job": job.id, "aria-expanded": "false", "aria-controls": panel.id, title: "Show the excerpt of its log" }, body);
  button.addEventListener("click", () => toggle(job, button, panel));
  return button;
}

async function toggle(job, button, panel) {
  const open = button.getAttribute("aria-expanded") !== "true";
  button.setAttribute("aria-expanded", String(open));
  panel.hidden = !open;
  if (!open || panel.dataset.loaded) return;
  panel.dataset.loaded = "yes";
  panel.replaceChildren(el("h2", {}, `Job ${job.id} ${job.name}`), el("p", { class: "muted" }, "Reading the failed jobs' logs…"));
  try {
    if (!view.triage) {
      view.triage = call(TOOL, { action: "triage", params: { project_id: view.project, pipeline_id: view.pipeline.id, max_bytes: TRIAGE_BYTES } });
    }
    panel.replaceChildren(el("h2", {}, `Job ${job.id} ${job.name}`), el("pre", { class: "log" }, excerpt(framedText(await view.triage), job)));
    say(`Excerpt of job ${job.name} shown.`);
  } catch (e) {
    view.triage = null;
    delete panel.dataset.loaded;
    panel.replaceChildren(el("h2", {}, `Job ${job.id} ${job.name}`), el("p", { class: "notice error" }, e.message));
  }
}

// The triage's paragraph on this job (it opens with `Job <id> `), or its
// line naming the job when its log had no room.
function excerpt(text, job) {
  const paragraphs = text.split(/\n\s*\n/);
  const own = paragraphs.find((p) => p.startsWith(`Job ${job.id} `));
  if (own) return own.split("\n").slice(1).map((l) => l.replace(/^  /, "")).join("\n");
  const line = text.split("\n").find((l) => l.includes(String(job.id)));
  return line || "The triage says nothing more about this job.";
}
