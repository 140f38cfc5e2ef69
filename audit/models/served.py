"""What a run knows of a served model before it scores it (plain data: probing the
endpoint is `audit.serving.served_model`'s job).

The fingerprint of a served model is what can be known of the artefact behind the URL:
the model id the server lists, the revision the spec states, and the digest of a probe
(the canary's echoed tokens and log-probabilities). The endpoint's address is not in it:
the same model served elsewhere scores the same.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

#: The precision label of a served model (part of every cache key): the server's numbers,
#: in whatever precision it computes them.
SERVED_PRECISION = "served"
#: The device of a served model, as results and reports show it.
SERVED_DEVICE = "endpoint"


@dataclass(frozen=True)
class ServedFacts:
    """What probing an endpoint found: the server's model id, the alignment verdict and
    the probe's digest; `changed_from` is the digest the last run on this cache saw for
    the same endpoint, model name and revision, when it differs."""

    endpoint: str  # without credentials
    model: str  # the name requests use
    server_model: str  # the id the server lists for it
    revision: str | None
    bos_text: str
    probe_digest: str
    probe_verdict: str
    changed_from: str | None = None
    logprobs_request: str = "echo"  # how prompt log-probabilities were asked for

    @property
    def fingerprint(self) -> str:
        identity = ["endpoint", self.server_model, self.revision or "", self.probe_digest]
        return hashlib.sha256(json.dumps(identity).encode("utf-8")).hexdigest()

    @property
    def source(self) -> str:
        """How results and reports name the source: endpoint and model, no credentials."""
        revision = f"@{self.revision}" if self.revision else ""
        return f"endpoint:{self.endpoint} model={self.model}{revision}"

    def change_note(self, model_id: str) -> str | None:
        """What the run says when the probe changed since the last run, else None."""
        if self.changed_from is None:
            return None
        return (
            f"{model_id}: the endpoint's probe changed since the last run on this cache "
            f"({self.changed_from[:12]} -> {self.probe_digest[:12]}): a different model, "
            f"build or quantisation answers as '{self.model}', so its cached scores are not "
            "reused"
        )
