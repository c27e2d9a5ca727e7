"""What Kubernetes manifests ask of the binary, as JSON: for each container
of a Deployment, its args, its environment (a value, or the Secret key it
comes from), its ports, its probes' paths and the pod's annotations; the
keys of each Secret; the resources a Kustomization lists. Read by
tests/it/kubernetes.rs through scripts/kubernetes-validate.sh --usage."""
import json
import sys

import yaml

containers = []
secrets = {}
resources = []
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        for doc in yaml.safe_load_all(f):
            kind = (doc or {}).get("kind")
            if kind == "Secret":
                keys = list(doc.get("stringData", {})) + list(doc.get("data", {}))
                secrets[doc["metadata"]["name"]] = keys
            if kind == "Kustomization":
                resources += doc.get("resources", [])
            if kind != "Deployment":
                continue
            pod = doc["spec"]["template"]
            for c in pod["spec"]["containers"]:
                env = {}
                for e in c.get("env", []):
                    if "value" in e:
                        env[e["name"]] = {"value": e["value"]}
                    else:
                        ref = e["valueFrom"]["secretKeyRef"]
                        env[e["name"]] = {"secret": ref["name"], "key": ref["key"]}
                containers.append({
                    "file": path,
                    "args": c.get("args", []),
                    "env": env,
                    "ports": {p["name"]: p["containerPort"] for p in c.get("ports", [])},
                    "probes": {
                        kind: c[kind]["httpGet"]["path"]
                        for kind in ("readinessProbe", "livenessProbe", "startupProbe")
                        if kind in c
                    },
                    "annotations": pod["metadata"].get("annotations", {}),
                })
print(json.dumps({"containers": containers, "secrets": secrets, "resources": resources}))
