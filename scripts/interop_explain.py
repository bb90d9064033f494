"""Reasons, fixes and examples for the diagnostic codes of the neighbouring formats
(seed-formats.md), used by make-explain-pages.py. An entry with `doc` has its failing example
produced by `squad validate` on registry-fixtures/interop/examples/<code>.json (written from
`doc`); one with `run` by that command; one with `text` is shown as written.
"""

PLAY = '{"id": "p", "name": "P", "roles": [{"id": "a", "does": "Do a."}, {"id": "b", "does": "Do b."}], %s"stop": {"when": "done"}}'
HANDOFF = '{"task_id": "AOS-7", "from": "orchestrator", "to": "writer", "goal": "Draft the launch post.", %s"definition_of_done": ["Draft saved"]}'
COLLAB = '{"schema_version": 1, "stage_execution": "mission_task", "id": "delivery", "label": "Delivery", "inputs": ["brief"], "outputs": ["report"], %s}'
STAGE = '{"id": "%s", "squad_id": "source-squad", "workflow_id": "delivery", "depends_on": %s, "consumes": %s, "produces": %s}'


def stages(*items):
    return '"stages": [' + ", ".join(STAGE % item for item in items) + "]"


ENTRIES = {
    "out-of-range": dict(
        why="The format's schema bounds numbers, string lengths and list sizes (a play has 1 to 12 roles, a handoff's max_tokens is at least 0). A value outside the bounds is rejected by every conforming validator.",
        fix="Bring the value inside the range the message names.",
        doc='{"id": "empty", "name": "Empty", "roles": [], "stop": {"when": "done"}}'),
    "pattern-mismatch": dict(
        why="Identifiers of the neighbouring formats have patterns (a play slug, an AOS task id). squad applies them with ECMA-262 semantics, as Ajv and the Rust jsonschema crate do: `\\d` is ASCII only and `$` does not match before a final newline.",
        fix="Write the value so that it matches the pattern in the message.",
        doc=HANDOFF.replace('"AOS-7"', '"TASK-7"') % ""),
    "invalid-format": dict(
        why="Where squad asserts a format (an AgentHandoff deadline at spec level), the value must be in it: a deadline of `next tuesday` cannot be compared with a clock.",
        fix="Write an RFC 3339 date-time with an offset, such as `2026-12-01T17:00:00Z`.",
        doc=HANDOFF % '"constraints": {"deadline": "tomorrow"}, '),
    "schema-violation": dict(
        why="Some schema rules combine others (anyOf, oneOf, if/then): an Open Floor dialog-event span needs a startTime or a startOffset, a token a value or a valueUrl.",
        fix="Give the value one of the shapes the message lists.",
        doc='{"id": "de-1", "speakerUri": "tag:example.com,2025:1", "span": {}, "features": {"text": {"mimeType": "text/plain", "tokens": [{"value": "Hi"}]}}}',
        args=["--kind", "ofp-dialog-event"]),
    "unknown-kind": dict(
        why="`squad lint` checks every file under a workspace's interop/ folder: by its place (interop/openvibe/, interop/ck/, interop/ofp/…, interop/aos/handoffs/) or else by its content. A file that is neither is probably misplaced, and would otherwise go unchecked.",
        fix="Move the file under the interop/ folder of its format (seed-formats §0.2), or out of interop/.",
        text="$ squad lint registry-fixtures/interop/workspace\ninterop/misc/unknown.json#/ unknown-kind unknown format: not a play, router contract or input, Open Floor document, handoff or collaboration"),
    "document-too-large": dict(
        why="squad reads a whole document into memory to position its findings; a limit keeps a hostile or mistaken file (a log, a dump) from exhausting memory.",
        fix="Validate the document itself, not a file that contains it; real documents are a few kilobytes.",
        text="error[document-too-large]: the document is 20971520 bytes; squad reads documents of at most 16777216 bytes\n --> dump.json"),
    # agents.play@1
    "play-role-dup": dict(why="Phases, checks and budget shares name roles by id; two roles with one id make every such reference ambiguous.", fix="Give each role its own id.",
        doc=PLAY.replace('"id": "b"', '"id": "a"') % ""),
    "play-phase-dup": dict(why="A phase id names one step of the play; two phases with one id cannot be told apart in a run's record.", fix="Give each phase its own id.",
        doc=PLAY % '"phases": [{"id": "work", "roles": ["a"]}, {"id": "work", "roles": ["b"]}], '),
    "play-phase-role": dict(why="A phase runs roles the play declares; an unknown id would leave the orchestrator with nothing to start.", fix="Declare the role under `roles`, or correct the id.",
        doc=PLAY % '"phases": [{"id": "work", "roles": ["c"]}], '),
    "play-phase-role-dup": dict(why="A phase lists who takes part; naming a role twice in one phase says nothing more (several instances are `count`).", fix="List the role once; use `count` for several instances.",
        doc=PLAY % '"phases": [{"id": "work", "roles": ["a", "a"]}], '),
    "play-check-by": dict(why="A check says who checks whose work; the checker must be one of the play's roles.", fix="Name a declared role in `by`.",
        doc=PLAY % '"checks": [{"by": "grader", "of": "a"}], '),
    "play-check-of": dict(why="A check says who checks whose work; the checked role must be one of the play's roles.", fix="Name a declared role in `of`.",
        doc=PLAY % '"checks": [{"by": "a", "of": "writer"}], '),
    "play-check-self": dict(why="A role checking its own work is no check at all: the point of CHECKS is a second pair of eyes. `--level lenient` reports it as a warning.", fix="Let another role check the work.",
        doc=PLAY % '"checks": [{"by": "a", "of": "a"}], '),
    "play-count": dict(why="count.min is the fewest instances of a role that run at once and count.max the most; a minimum above the maximum cannot be met.", fix="Make min at most max.",
        doc=PLAY.replace('"does": "Do a."', '"does": "Do a.", "count": {"min": 4, "max": 2}') % ""),
    "play-split-role": dict(why="budget.split gives each role its share of the parent's budget; a share for an undeclared role is money no one can spend.", fix="Key each share by a declared role id.",
        doc=PLAY % '"budget": {"split": {"a": 0.5, "c": 0.5}}, '),
    "play-split-num": dict(why="A share is a fraction of the parent's budget: a number, never negative.", fix="Write the share as a number between 0 and 1.",
        doc=PLAY % '"budget": {"split": {"a": "half"}}, '),
    "play-split-sum": dict(why="\"A child's budget is a slice of its parent's\": the shares add up to at most 1. squad sums them exactly in decimal, so 0.2 + 0.4 + 0.3 + 0.1 is exactly 1 (binary floating point says 1.0000000000000002).", fix="Lower the shares until they add up to at most 1.",
        doc=PLAY % '"budget": {"split": {"a": 0.7, "b": 1.5}}, '),
    "play-stop-rounds": dict(why="`stop.when: rounds` ends the play after a number of rounds, but nothing says how many: the orchestrator would have to guess.", fix="Add `\"rounds\": N` (1 to 20) to `stop`.",
        doc=(PLAY % "").replace('"stop": {"when": "done"}', '"stop": {"when": "rounds"}')),
    # import / export
    "import-play-id": dict(why="A play slug allows `a--b`, a trailing `-` and the names `runtime` and `worktrees`; a squad id does not (ID-1, ID-6).", fix="Pass `--rename OLD=NEW` with a lower-kebab-case id.",
        run=["import", "play", "registry-fixtures/interop/examples/import-play-id.json", "target/explain-import"],
        doc='{"id": "review--fast", "name": "Review", "roles": [{"id": "a", "does": "Do a."}], "stop": {"when": "done"}}', validate=False),
    "import-play-agent-id": dict(why="Role ids become agent ids, which must be lower-kebab-case and must not be one the runtime keeps (`orchestrator`, `shared`, `universal-build`, `runtime`, `worktrees`).", fix="Pass `--rename OLD=NEW` for the role.",
        run=["import", "play", "registry-fixtures/interop/examples/import-play-agent-id.json", "target/explain-import"],
        doc='{"id": "lead", "name": "Lead", "roles": [{"id": "orchestrator", "does": "Lead the work."}], "stop": {"when": "done"}}', validate=False),
    "import-play-does": dict(why="A role's `does` becomes its agent's prompt, and a squad refuses blank prompts (TXT-3).", fix="Write what the role does.",
        run=["import", "play", "registry-fixtures/interop/examples/import-play-does.json", "target/explain-import"],
        doc='{"id": "blank", "name": "Blank", "roles": [{"id": "a", "does": "   "}], "stop": {"when": "done"}}', validate=False),
    "import-play-node-id": dict(why="Workflow nodes are named `<phase id>-<role id>`; the result must be a valid id of at most 64 characters, and two phase/role pairs can join to the same string (`a-b` + `c`, `a` + `b-c`).", fix="Rename the role with `--rename ROLE=SHORTER`, or rename the phase in the play.",
        run=["import", "play", "registry-fixtures/interop/examples/import-play-node-id.json", "target/explain-import"],
        doc='{"id": "clash", "name": "Clash", "roles": [{"id": "c", "does": "Do c."}, {"id": "b-c", "does": "Do b-c."}], "phases": [{"id": "a-b", "roles": ["c"]}, {"id": "a", "roles": ["b-c"]}], "stop": {"when": "done"}}', validate=False),
    "import-play-count": dict(why="A play can run several instances of a role at once; a squad workflow node runs once per Task. The count is kept in play-extras.json and the orchestrator's prompt.", fix="Nothing to fix: the warning says what the squad cannot express."),
    "import-play-model": dict(why="A play's model hint (small, strong, same, other-family) has no manifest field. It is kept in play-extras.json and the role's prompt.", fix="Nothing to fix: choose the model in the runtime if it matters."),
    "import-play-agent": dict(why="A play can pin a role to one particular agent; a squad manifest has no such field. It is kept in play-extras.json and the prompt.", fix="Nothing to fix: the warning says what the squad cannot express."),
    "import-play-loop": dict(why="`passes` and `rounds` repeat the work; a squad workflow runs each node once per Task. The stop rule goes into the orchestrator's prompt. `--unroll-rounds` repeats the phases for `rounds` instead.", fix="Nothing to fix; for `stop.when: rounds` consider `--unroll-rounds`.",
        run=["import", "play", "registry-fixtures/interop/play/valid/grader-loop.json", "target/explain-import"]),
    "export-play-id": dict(why="A play id is a slug of at most 61 characters; a squad id may have 64.", fix="Export from a package whose id has at most 61 characters.",
        run=["export", "play", "registry-fixtures/interop/play/export/too-long", "--workflow", "review"]),
    "export-play-name": dict(why="A play name has at most 120 characters.", fix="Shorten the squad's label.",
        run=["export", "play", "registry-fixtures/interop/play/export/too-long", "--workflow", "review"]),
    "export-role-id": dict(why="A play role id is a slug of at most 61 characters; an agent id may have 64.", fix="Rename the agent to at most 61 characters.",
        run=["export", "play", "registry-fixtures/interop/play/export/too-long", "--workflow", "review"]),
    "export-role-name": dict(why="A play role name has at most 80 characters.", fix="Shorten the agent's label.",
        run=["export", "play", "registry-fixtures/interop/play/export/too-long", "--workflow", "review"]),
    "export-does": dict(why="A role's `does` is required (1 to 2000 characters) and comes from the agent's description, which a squad may leave out.", fix="Give the agent a description of at most 2000 characters.",
        run=["export", "play", "registry-fixtures/interop/play/export/too-long", "--workflow", "review"]),
    "export-roles": dict(why="A play has 1 to 12 roles.", fix="Export a workflow that uses at most 12 agents.",
        run=["export", "play", "registry-fixtures/interop/play/export/large", "--workflow", "wide"]),
    "export-phases": dict(why="A play has at most 20 phases, and each layer of the workflow becomes one.", fix="Export a workflow at most 20 nodes deep.",
        run=["export", "play", "registry-fixtures/interop/play/export/large", "--workflow", "deep"]),
    "export-edges": dict(why="Play phases run in order, each after the whole previous one; a workflow can say less (a node may depend on only part of the previous layer). The play is stricter than the workflow.", fix="Nothing to fix: the play orders more strictly than the workflow."),
    "export-dup-role": dict(why="A phase lists roles, not nodes: one agent behind two nodes of the same layer appears once.", fix="Nothing to fix: the warning says what the play cannot express.",
        run=["export", "play", "registry-fixtures/interop/play/export/large", "--workflow", "twins"]),
    # router
    "contract-role": dict(why="A router contract says which role it describes; under `--profile ck-brain` it must be `router-orchestrator`.", fix="Add `\"role\": \"router-orchestrator\"`."),
    "contract-in-req": dict(why="A router needs the request and the routes to choose from: `input.required` includes both.", fix="Add `request` and `routes` to `input.required`."),
    "contract-min": dict(why="`input.min_routes` is how many routes make a valid configuration; it is an integer of at least 1.", fix="Set `input.min_routes` to 1 or more."),
    "contract-route-req": dict(why="A route is classified by its description and delegated to its agent under its name: each route requires all three.", fix="Include `name`, `agent` and `description` in `input.route_required`."),
    "contract-handoff": dict(why="The router hands the chosen agent a structured task: `handoff.required` includes task, context_notes and constraints.", fix="Add the missing keys to `handoff.required`."),
    "contract-states": dict(why="A router answers in one of four states (routed, unrouted, invalid_configuration, delegation_failed), and each state has a `<state>_required` list that includes `status`, which carries the state.", fix="List exactly the four states and give each its `_required` list with `status`."),
    "contract-behavior": dict(why="The behaviour keys pin what a ck-brain router may do: choose one route, delegate once, never invent routes, keep the delegate's result verbatim. Under `--profile ck-brain` a different value is an error; otherwise a warning.", fix="Use the value the message names, or drop `--profile ck-brain` for a router that is deliberately different."),
    "contract-impl": dict(why="A contract names its implementations (a Claude Code agent file, a Codex agent file); they must exist and carry a name, a description and, for Codex, developer_instructions.", fix="Create the file, or add the missing fields."),
    "router-config": dict(why="With missing or too few routes, a route without name, agent or description, two routes of one name, or a blank agent, the only correct answer is `invalid_configuration`.", fix="Fix the routes, or answer `invalid_configuration`."),
    "router-config-spurious": dict(why="`invalid_configuration` is for configurations that are invalid; answering it to a valid one hides a routing failure.", fix="Route the request, or answer `unrouted` with candidates."),
    "router-one-route": dict(why="A ck-brain router selects at most one route (`max_routes_selected: 1`).", fix="Name exactly one route."),
    "router-invented": dict(why="A router never invents routes (`invent_routes: false`): the answer names a route of the input.", fix="Answer with one of the input's route names."),
    "router-agent": dict(why="The agent of the answer is the selected route's agent: route names are opaque, the agent is the dispatch target.", fix="Use the route's own agent."),
    "router-one-delegation": dict(why="A router delegates once (`max_delegations: 1`): a failed delegation is reported, not retried on another route.", fix="Report the one failed attempt, without a fallback."),
    "router-handoff": dict(why="The handoff must carry every field the contract's `handoff.required` names.", fix="Add the missing fields to the handoff."),
    "router-ambiguous": dict(why="An ambiguous request is answered `unrouted` with the candidate routes (`ambiguous_intent: unrouted`); guessing would delegate to the wrong agent.", fix="Answer `unrouted` with `candidates`."),
    "router-verbatim": dict(why="The delegate's terminal result is returned verbatim (`preserve_delegated_result`); a router that rewrites it changes what the agent said.", fix="Return the delegate's result unchanged."),
    "routes-desc": dict(why="A router classifies requests by route descriptions only; an agent without a description cannot be chosen.", fix="Give the agent a description."),
    "routes-none": dict(why="A router needs at least one route (`min_routes: 1`); a squad without agents has none.", fix="Declare at least one agent."),
    # Open Floor
    "ofp-type": dict(why="The envelope schema gives `openFloor` and `conversation` no type, so `\"conversation\": []` passes it; the spec describes both as objects.", fix="Make the value an object."),
    "ofp-eventtype": dict(why="The spec makes `eventType` mandatory on every event; the schema forgets to require it.", fix="Add the event's `eventType`."),
    "ofp-to-empty": dict(why="A `to` section addresses one conversant by speakerUri or serviceUrl; an empty one addresses no one.", fix="Name the recipient's speakerUri or serviceUrl, or drop `to` to address everyone."),
    "ofp-invite-to": dict(why="The spec says an invite's `to` is mandatory and also that without `to` everyone is invited; squad warns.", fix="Add `to` with the invited agent's serviceUrl."),
    "ofp-publish-alias": dict(why="The docs repository spells the event `publishManifest`; the spec prose, the JS and Python libraries and the seed schema say `publishManifests`. squad accepts both at spec level.", fix="Write `publishManifests`."),
    "ofp-retired": dict(why="findAssistant and proposeAssistant were renamed getManifests and publishManifests in 0.9.4; they remain in the enum only for old senders.", fix="Use getManifests / publishManifests."),
    "ofp-utterance-de": dict(why="The schema links the dialog event with `ref` instead of `$ref`, so it never checks it; squad does. Problems inside the nested document are errors too, except the few deviations the spec's own official samples carry (a dialog event without `id`, a manifest without organization or conversationalName, a list as supportedLayers), which are warnings because the spec records those samples as valid.", fix="Make `parameters.dialogEvent` a valid dialog event."),
    "ofp-utterance-text": dict(why="The envelope spec requires every utterance's dialog event to carry a `text` feature with mimeType text/plain, so every agent can read it.", fix="Add a `text` feature with mimeType `text/plain`."),
    "ofp-context-de": dict(why="A context event's dialogHistory is a list of dialog events; the schema only checks they are objects. Problems inside the nested document are errors too, except the few deviations the spec's own official samples carry (a dialog event without `id`, a manifest without organization or conversationalName, a list as supportedLayers), which are warnings because the spec records those samples as valid.", fix="Make each history item a valid dialog event."),
    "ofp-manifests": dict(why="publishManifests carries assistant manifests (with an optional score in [0, 1]); the schema's broken `ref` never checks them. Problems inside the nested document are errors too, except the few deviations the spec's own official samples carry (a dialog event without `id`, a manifest without organization or conversationalName, a list as supportedLayers), which are warnings because the spec records those samples as valid.", fix="Make each item a valid assistant manifest."),
    "ofp-scope": dict(why="getManifests.recommendScope is internal (the default), external or all.", fix="Use one of the three scopes."),
    "ofp-reason-token": dict(why="Special reason tokens (`@timedOut`, `@refused`, …) are defined per event type; an unknown one will not be understood.", fix="Use a token documented for the event, or plain text."),
    "ofp-conversant-keys": dict(why="The conversant item is not closed by the schema (its `additionalProperties` sits inside `properties`), so a misspelt key such as `persistentState` passes unvalidated.", fix="Use the schema's key, `persistent_state`."),
    "ofp-manifest-speaker": dict(why="The manifest spec and the JS library make speakerUri mandatory, though the schema does not: it is the agent's persistent identity.", fix="Add identification.speakerUri, e.g. a tag: URI."),
    "ofp-manifest-synopsis": dict(why="The manifest spec makes the synopsis mandatory: it is what a convener reads (or speaks) to choose an agent.", fix="Add identification.synopsis, under about 75 characters."),
    "ofp-synopsis-long": dict(why="A synopsis should be under about 75 characters, about 5 seconds spoken.", fix="Shorten the agent's description, or accept the warning."),
    "ofp-dialog-span-xor": dict(why="A span starts at a time or at an offset, not both, and ends likewise; the schema only asks for one start.", fix="Keep one of startTime/startOffset and one of endTime/endOffset."),
    "ofp-dialog-confidence": dict(why="A token's confidence is a probability in [0, 1].", fix="Scale the confidence into [0, 1]."),
    "ofp-dialog-encoding": dict(why="A feature's encoding is ISO-8859-1 or UTF-8.", fix="Use one of the two encodings."),
    # handoff
    "handoff-dod-blank": dict(why="The definition of done is a checklist of verifiable outcomes; a blank item passes the schema but checks nothing.", fix="Write the outcome, or remove the item.",
        doc=HANDOFF.replace('["Draft saved"]', '["Draft saved", " "]') % ""),
    "handoff-approval-dup": dict(why="needs_approval_for lists actions that pause for a person; a repeat says nothing more and hints at a copy mistake.", fix="List each action once.",
        doc=HANDOFF % '"needs_approval_for": ["publish", "publish"], '),
    "handoff-zero-budget-spend": dict(why="budget_eur 0 means no spend is allowed, so asking for approval to spend contradicts it.", fix="Raise the budget, or drop `spend` from needs_approval_for.",
        doc=HANDOFF % '"constraints": {"budget_eur": 0}, "needs_approval_for": ["spend"], '),
    "handoff-from": dict(why="With --squad, a handoff comes from the Orchestrator or one of the squad's agents.", fix="Use `orchestrator` or an agent id of the squad."),
    "handoff-to": dict(why="With --squad, a handoff goes to one of the squad's agents: the agent id is the dispatch target.", fix="Use an agent id of the squad."),
    "handoff-from-worker": dict(why="In a squad only the Orchestrator dispatches projected workers; a worker-to-worker handoff will not happen at run time.", fix="Send the handoff from `orchestrator`."),
    "handoff-deadline-past": dict(why="With --now, a deadline that is not after now cannot be met.", fix="Move the deadline, or drop it."),
    # collaborations
    "collab-schema-version": dict(why="The collaboration format has one version; the reference refuses any other.", fix="Set `schema_version` to 1.",
        doc=COLLAB.replace('"schema_version": 1', '"schema_version": 2') % stages(("build", "[]", '["brief"]', '["report"]'))),
    "collab-stage-execution": dict(why="Each stage runs as one Mission-owned Task; `mission_task` is the only execution mode.", fix="Set `stage_execution` to \"mission_task\".",
        doc=COLLAB.replace('"mission_task"', '"shared_task"') % stages(("build", "[]", '["brief"]', '["report"]'))),
    "collab-id": dict(why="Collaboration, stage, squad and workflow ids and evidence keys are canonical lower-kebab-case identifiers of at most 64 characters.", fix="Write the identifier in lower-kebab-case.",
        doc=COLLAB % stages(("Build Stage", "[]", '["brief"]', '["report"]'))),
    "collab-label": dict(why="The label names the collaboration to people; a blank one says nothing.", fix="Write a label.",
        doc=COLLAB.replace('"label": "Delivery"', '"label": " "') % stages(("build", "[]", '["brief"]', '["report"]'))),
    "collab-no-stages": dict(why="A collaboration delivers through its stages; without one it does nothing.", fix="Add a stage.",
        doc=COLLAB.replace('"outputs": ["report"]', '"outputs": []') % '"stages": []'),
    "collab-duplicate": dict(why="Identifier lists are sets and stage ids name one stage each; a repeat is ambiguous.", fix="Remove the repeat or rename the stage.",
        doc=COLLAB.replace('"inputs": ["brief"]', '"inputs": ["brief", "brief"]') % stages(("build", "[]", '["brief"]', '["report"]'))),
    "collab-duplicate-manifest": dict(why="Stages name squads by id; two supplied squads with one id make that ambiguous.", fix="Pass each squad once.",
        run=["collab", "validate", "registry-fixtures/interop/collab/example-delivery.collab.json", "--squad", "registry-fixtures/interop/collab/squads/source-squad", "--squad", "registry-fixtures/interop/collab/squads/source-squad"]),
    "collab-manifest": dict(why="Each supplied squad must itself be valid before stages can rely on its workflows.", fix="Run `squad validate` on the squad and fix it.",
        run=["collab", "validate", "registry-fixtures/interop/collab/example-delivery.collab.json", "--squad", "registry-fixtures/invalid/blank-file--prompt"]),
    "collab-depends-on": dict(why="Stages run in array order; a stage can depend only on stages listed before it, which also rules out cycles.", fix="Move the dependency earlier, or drop it.",
        doc=COLLAB % stages(("build", '["review"]', '["brief"]', '["draft"]'), ("review", "[]", '["brief"]', '["report"]'))),
    "collab-unknown-squad": dict(why="A stage runs a supplied squad's workflow; an unknown squad id has nothing to run.", fix="Pass the squad with --squad, or correct the id.",
        run=["collab", "validate", "registry-fixtures/interop/examples/collab-unknown-squad.json", "--squad", "registry-fixtures/interop/collab/squads/source-squad"],
        doc=COLLAB % stages(("build", "[]", '["brief"]', '["report"]')).replace('"source-squad"', '"missing-squad"')),
    "collab-unknown-workflow": dict(why="A stage runs one workflow of its squad; a squad with `virtual_workflows: {}` can never be a stage.", fix="Name a workflow the squad declares.",
        run=["collab", "validate", "registry-fixtures/interop/examples/collab-unknown-workflow.json", "--squad", "registry-fixtures/interop/collab/squads/source-squad"],
        doc=COLLAB % stages(("build", "[]", '["brief"]', '["report"]')).replace('"delivery"}', '"missing"}').replace('"workflow_id": "delivery"', '"workflow_id": "missing"')),
    "collab-squads-unchecked": dict(why="`squad validate` sees only the collaboration file, so squad and workflow ids cannot be checked there.", fix="Run `squad collab validate FILE --squad PKG...`.",
        doc=COLLAB % stages(("build", "[]", '["brief"]', '["report"]'))),
    "collab-evidence": dict(why="A stage can consume only collaboration inputs and evidence produced by the stages it depends on, directly or transitively; anything else would not exist when it runs.", fix="Depend on the stage that produces the evidence, or add it to `inputs`.",
        doc=COLLAB % stages(("build", "[]", '["brief"]', '["draft"]'), ("review", "[]", '["draft"]', '["report"]'))),
    "collab-no-evidence": dict(why="Every stage must produce visible evidence, or its work cannot be consumed or checked.", fix="Name what the stage produces.",
        doc=COLLAB % stages(("prepare", "[]", '["brief"]', "[]"), ("build", "[]", '["brief"]', '["report"]'))),
    "collab-double-producer": dict(why="Each evidence key has one producer, so consumers know whose work they read.", fix="Give the second stage's evidence its own key.",
        doc=COLLAB % stages(("build", "[]", '["brief"]', '["report"]'), ("rebuild", '["build"]', '["report"]', '["report"]'))),
    "collab-output": dict(why="The collaboration's outputs must be produced by its stages; an external input alone does not satisfy an output.", fix="Produce the output in a stage, or remove it from `outputs`.",
        doc=COLLAB.replace('"outputs": ["report"]', '"outputs": ["report", "summary"]') % stages(("build", "[]", '["brief"]', '["report"]'))),
}

# Examples that need the validators of Open Floor, routers and handoffs.
ENVELOPE = '{"openFloor": {"schema": {"version": "1.0.0"}, "conversation": {"id": "conv-1"%s}, "sender": {"speakerUri": "tag:example.com,2025:host"}, "events": [%s]}}'
TEXT_EVENT = '{"id": "de-1", "speakerUri": "tag:example.com,2025:host", "span": {"startTime": "2025-06-01T10:00:00Z"}, "features": {%s}}'
TEXT_FEATURE = '"text": {"mimeType": "text/plain", "tokens": [{"value": "Hello"%s}]%s}'
MANIFEST = '{"identification": {%s"serviceUrl": "https://agents.example.com/reviewer", "organization": "Acme", "conversationalName": "Reviewer"%s}, "capabilities": [{"keyphrases": ["review"], "descriptions": ["Reviews drafts."]}]}'
CASE = "registry-fixtures/interop/router/cases/"
CONTRACT = "registry-fixtures/interop/router/contracts/invalid/"


def case(name, *extra):
    return ["router", "check", "--input", CASE + name + "/input.json", "--output", CASE + name + "/output.json", *extra]


def utterance(event):
    return '{"eventType": "utterance", "parameters": {"dialogEvent": %s}}' % event


OFP_EXAMPLES = {
    "ofp-type": ENVELOPE.replace('{"id": "conv-1"%s}', "[]") % utterance(TEXT_EVENT % (TEXT_FEATURE % ("", ""))),
    "ofp-eventtype": ENVELOPE % ("", '{"reason": "hello"}'),
    "ofp-to-empty": ENVELOPE % ("", '{"eventType": "bye", "to": {}, "parameters": {}}'),
    "ofp-invite-to": ENVELOPE % ("", '{"eventType": "invite", "parameters": {}}'),
    "ofp-publish-alias": ENVELOPE % ("", '{"eventType": "publishManifest", "parameters": {"servicingManifests": []}}'),
    "ofp-retired": ENVELOPE % ("", '{"eventType": "findAssistant"}'),
    "ofp-utterance-de": ENVELOPE % ("", utterance("42")),
    "ofp-utterance-text": ENVELOPE % ("", utterance(TEXT_EVENT % '"ssml": {"mimeType": "application/ssml+xml", "tokens": [{"value": "<speak>Hello</speak>"}]}')),
    "ofp-context-de": ENVELOPE % ("", '{"eventType": "context", "parameters": {"dialogHistory": [{"id": "de-0"}]}}'),
    "ofp-manifests": ENVELOPE % ("", '{"eventType": "publishManifests", "parameters": {"servicingManifests": "junk"}}'),
    "ofp-scope": ENVELOPE % ("", '{"eventType": "getManifests", "parameters": {"recommendScope": "everything"}}'),
    "ofp-reason-token": ENVELOPE % ("", '{"eventType": "uninvite", "to": {"speakerUri": "tag:example.com,2025:guest"}, "reason": "@complete", "parameters": {}}'),
    "ofp-conversant-keys": ENVELOPE % (', "conversants": [{"identification": {"speakerUri": "tag:example.com,2025:guest", "serviceUrl": "https://agents.example.com/guest", "organization": "Acme", "conversationalName": "Guest", "synopsis": "A guest."}, "persistentState": {}}]', ""),
    "ofp-manifest-speaker": MANIFEST % ("", ', "synopsis": "Reviews drafts."'),
    "ofp-manifest-synopsis": MANIFEST % ('"speakerUri": "tag:example.com,2025:reviewer", ', ""),
    "ofp-dialog-span-xor": TEXT_EVENT.replace('{"startTime": "2025-06-01T10:00:00Z"}', '{"startTime": "2025-06-01T10:00:00Z", "startOffset": "PT0S"}') % (TEXT_FEATURE % ("", "")),
    "ofp-dialog-confidence": TEXT_EVENT % (TEXT_FEATURE % (', "confidence": 1.5', "")),
    "ofp-dialog-encoding": TEXT_EVENT % (TEXT_FEATURE % ("", ', "encoding": "UTF-16"')),
}
for code, doc in OFP_EXAMPLES.items():
    ENTRIES[code]["doc"] = doc

RUNS = {
    "contract-role": ["router", "contract", CONTRACT + "r-role-missing.contract.json"],
    "contract-in-req": ["router", "contract", CONTRACT + "r-in-req.contract.json"],
    "contract-min": ["router", "contract", CONTRACT + "r-min.contract.json"],
    "contract-route-req": ["router", "contract", CONTRACT + "r-route-req.contract.json"],
    "contract-handoff": ["router", "contract", CONTRACT + "r-handoff.contract.json"],
    "contract-states": ["router", "contract", CONTRACT + "r-states-missing-state.contract.json"],
    "contract-behavior": ["router", "contract", "--profile", "ck-brain", CONTRACT + "r-behavior-two-routes.contract.json"],
    "contract-impl": ["router", "contract", "--profile", "ck-brain", "registry-fixtures/interop/router/contracts/invalid-impl/missing-md/ck-brain.contract.json"],
    "router-config": case("duplicate-names-routed"),
    "router-config-spurious": case("spurious-invalid-configuration"),
    "router-one-route": case("two-routes"),
    "router-invented": case("invented-route"),
    "router-agent": case("wrong-agent"),
    "router-one-delegation": case("delegation-failed-with-fallback"),
    "router-handoff": case("handoff-without-constraints"),
    "router-ambiguous": case("ambiguous-routed", "--expect", "unrouted"),
    "router-verbatim": case("changed-result", "--delegate-result", CASE + "changed-result/delegate_result.json"),
    "ofp-synopsis-long": ["ofp", "manifests", "../shared/corpus/opencorvus/academic-paper-review", "--service-url", "https://agents.example.com", "--organization", "Acme", "-o", "target/explain-import.json"],
}
for code, args in RUNS.items():
    ENTRIES[code]["run"] = args

HANDOFF_SQUAD = "registry-fixtures/interop/collab/squads/source-squad"
ENTRIES["handoff-from"].update(
    doc=HANDOFF.replace('"from": "orchestrator"', '"from": "ads-lead"').replace('"to": "writer"', '"to": "example-builder"') % "",
    run=["handoff", "validate", "registry-fixtures/interop/examples/handoff-from.json", "--squad", HANDOFF_SQUAD])
ENTRIES["handoff-to"].update(
    doc=HANDOFF % "",
    run=["handoff", "validate", "registry-fixtures/interop/examples/handoff-to.json", "--squad", HANDOFF_SQUAD])
ENTRIES["handoff-from-worker"].update(
    doc=HANDOFF.replace('"from": "orchestrator"', '"from": "example-builder"').replace('"to": "writer"', '"to": "example-builder"') % "",
    run=["handoff", "validate", "registry-fixtures/interop/examples/handoff-from-worker.json", "--squad", HANDOFF_SQUAD])
ENTRIES["handoff-deadline-past"].update(
    doc=HANDOFF % '"constraints": {"deadline": "2026-01-01T09:00:00Z"}, ',
    run=["handoff", "validate", "registry-fixtures/interop/examples/handoff-deadline-past.json", "--now", "2026-06-01T00:00:00Z"])
