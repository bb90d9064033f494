"""Reasons, fixes and failing projects for the diagnostic codes of a project's files
(docs/project-files.md), used by make-explain-pages.py. Each entry's `files` are written under
registry-fixtures/projects/<code>/ and its failing example is the real output of
`squad sync --project` on that directory; `line` is where the diagnostic must point (the
integration tests check every case against registry-fixtures/projects/cases.json).
"""

JSONC = ".opencorvus/squads.jsonc"
LOCK = ".opencorvus/squads.lock"
REVIEW = '"acme/review": { "source": "oci://ghcr.io/acme/squads/acme/review" }'


def squads(*entries):
    return "// The squads this project uses.\n{\n  \"squads\": {\n" + ",\n".join("    " + entry for entry in entries) + "\n  }\n}\n"


ENTRIES = {
    "squads-syntax": dict(
        why="squads.jsonc is read with the reference's JSONC dialect: JSON plus `//` and `/* */` comments and trailing commas, nothing else. squad edits the file in place, so it must first be able to read all of it.",
        fix="Write valid JSONC: here, a comma between the two squads.",
        files={JSONC: squads(REVIEW + "\n    \"acme/triage\": { \"source\": \"squads/triage\" }")},
        line=4),
    "squads-wrong-type": dict(
        why="Each key has one JSON type: `squads` is an object of squads, each squad an object with a `source`, and every value in it a string. A bare string cannot carry the version or SHA-256 a source may need.",
        fix="Write the squad as an object: `\"acme/review\": { \"source\": \"oci://ghcr.io/acme/squads/acme/review\" }`.",
        files={JSONC: squads('"acme/review": "oci://ghcr.io/acme/squads/acme/review"')},
        line=4),
    "squads-unknown-key": dict(
        why="The keys of squads.jsonc are a closed set. A misspelt key would otherwise be a setting silently ignored (here, a version that would not be pinned), and a key of a newer squad (a trust policy, say) must not be ignored by an older one that does not enforce it.",
        fix="Use a known key (the help line lists them, or suggests the one meant): `\"version\"`.",
        files={JSONC: squads('"acme/review": { "source": "oci://ghcr.io/acme/squads/acme/review", "verison": "2026.12.01.1" }')},
        line=4),
    "squads-invalid-name": dict(
        why="A squad is declared under the namespace and id its manifest declares, `<namespace>/<id>`: the install location (`expert-squads/<namespace>/<id>`) and the lock are keyed by it, and a source whose package has another name is refused.",
        fix="Write the namespace too: `\"acme/review\"`.",
        files={JSONC: squads('"review": { "source": "squads/review" }')},
        line=4),
    "squads-missing-key": dict(
        why="A squad needs a `source`, and an `https://` source needs the SHA-256 of its archive: a URL alone says where bytes are, not which bytes, and the server could serve other ones tomorrow.",
        fix="Add `\"sha256\": \"<64 hex>\"`, the SHA-256 of the archive (`sha256sum web-expert-squad.zip`), or `squad add URL --sha256 HEX`.",
        files={JSONC: squads('"acme/web": { "source": "https://example.com/web-expert-squad.zip" }')},
        line=4),
    "squads-invalid-source": dict(
        why="A source must be one squad can resolve the same way on every machine: a folder or archive relative to the project, an `oci://` reference, an `https://` archive (plain HTTP to loopback only) or a valid OpenCorvus install link. An absolute path exists on one machine only.",
        fix="Write the path relative to the project (`squads/review`), or use a registry: `squad add` writes it for you.",
        files={JSONC: squads('"acme/review": { "source": "/home/me/squads/review" }')},
        line=4),
    "squads-invalid-version": dict(
        why="A version is `YYYY.MM.DD.N`, the form every squad version has, and it pins an `oci://` source that names no tag or digest; other sources fix their own version.",
        fix="Write a full version, `\"2026.12.01.1\"`, or leave `version` out for the newest (locked at `add` and `update` time).",
        files={JSONC: squads('"acme/review": { "source": "oci://ghcr.io/acme/squads/acme/review", "version": "2026.12.1" }')},
        line=4),
    "squads-duplicate": dict(
        why="A project scope holds one package per id, whatever its namespace (UNQ-1), so two squads with one id cannot both be installed; a key given twice is ambiguous.",
        fix="Keep one of the two squads, or rename one package's id.",
        files={JSONC: squads(REVIEW, '"other/review": { "source": "squads/review" }')},
        line=5),
    "squads-lock-invalid": dict(
        why="squads.lock is written by squad only and read strictly: a lock that is not JSON, has keys the format does not know, or a lock_version written by a newer squad is refused, never silently rewritten without what it recorded.",
        fix="Restore squads.lock from version control, or upgrade squad for a newer lock_version. A lock a merge left with conflict markers is not broken: `squad sync` resolves it, keeping what both branches lock alike and resolving the rest anew.",
        files={JSONC: squads(REVIEW), LOCK: '{\n  "lock_version": 9,\n  "squads": {}\n}\n'},
        line=2),
    "squads-invalid-trust": dict(
        why="A signature policy is only as good as the keys it names: a trusted key must be a minisign public key (the `RW…` line of a `.pub` file), an expiry a date, a revoked entry a key id or a key. squad refuses to guess, because a policy it could not read would let unsigned squads through or refuse every one.",
        fix="Copy the key's `RW…` line from the publisher's `.pub` file, or let `squad trust add acme.pub --namespace acme` write it.",
        files={JSONC: "{\n  \"require_signatures\": true,\n  \"trust\": { \"acme\": [\"RWQ-not-a-key\"] },\n  \"squads\": {}\n}\n"},
        line=3),
    "squads-invalid-audit": dict(
        why="The audit policy decides which squads a project refuses before they run: `audit` is the lowest severity of a `squad audit` finding that refuses one, and each accepted finding excuses one code for one version only (its package digest), with the reason a reviewer gave. A policy squad could not read would either let every finding through or refuse every squad, so it refuses the file instead.",
        fix="Name the squad, the package digest `squad digest` prints for the version you reviewed, the code `squad audit` printed, and why it is acceptable.",
        files={JSONC: "{\n  \"audit\": \"warning\",\n  \"accepted_findings\": [ { \"squad\": \"acme/review\", \"code\": \"tool-reaches-network\", \"reason\": \"it calls our tracker\" } ],\n  \"squads\": {}\n}\n"},
        line=3),
    "squads-invalid-release-age": dict(
        why="`minimum_release_age` is a cooldown: `add`, `update` and `sync` take no version younger than it unless the version is named, so that a release pushed minutes ago from a stolen account is not installed before anyone has looked at it. A value squad could not read would either hold nothing back or everything, so it refuses the file instead of guessing a unit.",
        fix="Write a whole number of days, hours or minutes: `\"3d\"`, `\"12h\"` or `\"90m\"`.",
        files={JSONC: "{\n  \"minimum_release_age\": \"3 days\",\n  \"squads\": {}\n}\n"},
        line=2),
}
