//! The stable diagnostic codes. Each code names one rule (or one family of closely related
//! rules) of the package format; its kebab-case name is part of the JSON output contract.

use super::Severity;

macro_rules! codes {
    ($( $variant:ident = $name:literal, $severity:ident, $rules:literal, $description:literal; )*) => {
        /// A diagnostic code. The kebab-case name (`Code::as_str`) never changes once released.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code { $( $variant, )* }

        impl Code {
            /// Every code, in documentation order.
            pub const ALL: &'static [Code] = &[$( Code::$variant, )*];

            pub fn as_str(self) -> &'static str {
                match self { $( Code::$variant => $name, )* }
            }

            /// The severity a diagnostic with this code has.
            pub fn severity(self) -> Severity {
                match self { $( Code::$variant => Severity::$severity, )* }
            }

            /// The rule ids of `package-format.md` this code enforces.
            pub fn rules(self) -> &'static str {
                match self { $( Code::$variant => $rules, )* }
            }

            /// One sentence on what the code means.
            pub fn description(self) -> &'static str {
                match self { $( Code::$variant => $description, )* }
            }

            pub fn from_name(name: &str) -> Option<Code> {
                Code::ALL.iter().copied().find(|code| code.as_str() == name)
            }
        }
    };
}

impl Code {
    /// The rule ids [`Code::rules`] cites, each stated in `docs/rules.md`: ranges such as
    /// `MAN-1..13` or `TOOL-T2..T4` are spelled out; JSON Schema keywords and section numbers
    /// (`minimum`, `seed-formats 0.3`), which are not ids, are left out.
    pub fn rule_ids(self) -> Vec<String> {
        let mut ids = Vec::new();
        for part in self.rules().split(',').map(str::trim) {
            match part.split_once("..") {
                Some((first, last)) => {
                    let (family, from) = first.rsplit_once('-').unwrap_or((first, ""));
                    let letters = from.trim_end_matches(|c: char| c.is_ascii_digit());
                    let parse = |number: &str| number.trim_start_matches(letters).parse::<u32>();
                    if let (Ok(from), Ok(to)) = (parse(from), parse(last)) {
                        ids.extend((from..=to).map(|n| format!("{family}-{letters}{n}")));
                    }
                }
                None if is_rule_id(part) => ids.push(part.to_owned()),
                None => {}
            }
        }
        ids
    }
}

/// `PREF-1`, `AG-3a`, `MAN`: upper-case words and numbers joined by hyphens, with an optional
/// lower-case letter at the end.
fn is_rule_id(text: &str) -> bool {
    let body = text
        .strip_suffix(|c: char| c.is_ascii_lowercase())
        .unwrap_or(text);
    body.starts_with(|c: char| c.is_ascii_uppercase())
        && body.split('-').all(|word| {
            !word.is_empty()
                && word
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        })
}

codes! {
    // Reading files.
    JsoncSyntax = "jsonc-syntax", Error, "MAN-F2, MCP-1", "the file is not valid JSONC (JSON with comments and trailing commas)";
    DuplicateKey = "duplicate-key", Warning, "MAN-F2, INC-24", "an object repeats a key; the last occurrence wins, as in the reference";
    InvalidUtf8 = "invalid-utf8", Warning, "MAN-F2, TXT-4", "the file is not valid UTF-8; invalid bytes were read as U+FFFD, as the reference does";
    Unreadable = "unreadable", Error, "VAL-3", "a file or directory of the package could not be read";
    // Manifest schema.
    UnknownField = "unknown-field", Error, "MAN-F3, MCP-1", "an object has a key its schema does not allow";
    MissingField = "missing-field", Error, "MAN-1..13, SEL, CFG, CP, SCH, AG, WF, ND, RES, MCP-1", "a required key is absent";
    WrongType = "wrong-type", Error, "MAN, STR-1, RES-U, MCP-1", "a value has the wrong JSON type (optional fields must be absent, never null)";
    InvalidLiteral = "invalid-literal", Error, "MAN-1, MAN-9, MAN-10, SEL-3, SCH-1, AG-4, CFG-2, MCP-1", "a value must be one fixed string or one of a few";
    BlankString = "blank-string", Error, "STR-1", "a string must not be empty (or blank, for non-blank fields)";
    InvalidId = "invalid-id", Error, "ID-1..4, CFG-2, LIM-3", "an identifier does not match its pattern or is too long";
    ReservedId = "reserved-id", Error, "ID-3, ID-6", "an identifier is reserved by the runtime";
    BuiltinIdCollision = "builtin-id-collision", Warning, "ID-5, VAL-9", "the package id is the id of an embedded built-in package: it validates, but installing it as a third-party package is refused";
    InvalidVersion = "invalid-version", Error, "VER-1", "the version does not match YYYY.MM.DD.N";
    InvalidVersionDate = "invalid-version-date", Error, "VER-2", "the version's date is not a real calendar date (years 0000-0099 included)";
    EmptyList = "empty-list", Error, "MAN-8, CFG-1, WF-3", "a list or record that needs at least one element is empty";
    DuplicateEntry = "duplicate-entry", Error, "MAN-8, RES-U, CFG-3, GR-2, MCP-1", "a list repeats an element";
    UnsortedList = "unsorted-list", Error, "MAN-8, GR-2", "a list must be strictly ascending (canonically sorted)";
    UnknownBaseRole = "unknown-base-role", Error, "AG-3a", "an agent's base_role is not one of the 13 runtime templates";
    ExecutionContractMismatch = "execution-contract-mismatch", Error, "AG-4a", "execution_contract is present iff base_role is integrity";
    InvalidPromptPath = "invalid-prompt-path", Error, "MAN-R2, SCH-2, AG-5", "a prompt must be exactly agents/<owner>/system.md";
    // Tools and resource references.
    UnknownBuiltInTool = "unknown-built-in-tool", Error, "TOOL-1, TOOL-T1", "built_in_tool_ids names an id that is not a core tool";
    ToolNotSuppliedByRole = "tool-not-supplied-by-role", Error, "TOOL-1, TOOL-2, TOOL-T2..T4", "the projection's base role cannot project this tool";
    InvalidDefaultRef = "invalid-default-ref", Error, "DREF-1..6", "a default (host) reference does not match its grammar";
    UnknownDefaultTool = "unknown-default-tool", Error, "TOOL-2, TOOL-T2", "default_tool_refs names a host tool that does not exist";
    DefaultMcpServerUnsupported = "default-mcp-server-unsupported", Error, "DREF-3", "default_mcp_server_refs must be empty";
    ForeignPackageRef = "foreign-package-ref", Error, "PREF-1, REF-1", "a package reference does not start with this package's id";
    DanglingRef = "dangling-ref", Error, "PREF-0, PREF-1", "a package reference names a resource this package does not contain";
    RefNotOwned = "ref-not-owned", Error, "PREF-2", "a projection references another agent's local resource";
    McpMountedTwice = "mcp-mounted-twice", Error, "PREF-3", "a typed MCP reference names a server the same projection already mounts";
    UnprojectedResource = "unprojected-resource", Error, "PROJ-1, PROJ-2", "a resource the package contains is not projected by any (or its owning) projection";
    // Workflows.
    UnknownAgent = "unknown-agent", Error, "GR-1, ND-1", "a workflow node names an agent that is not declared";
    UnknownDependency = "unknown-dependency", Error, "GR-3", "depends_on names a node that is not in the same workflow";
    SelfDependency = "self-dependency", Error, "GR-3", "a node depends on itself";
    DependencyCycle = "dependency-cycle", Error, "GR-4", "a workflow's dependency graph has a cycle";
    UnusedAgent = "unused-agent", Note, "GR-5", "the package declares workflows, and an agent is a node of none of them";
    // Package files.
    MissingFile = "missing-file", Error, "ROOT-2, AGD-3, MAN-F1", "a required or referenced file does not exist";
    ReadmeFrontmatter = "readme-frontmatter", Error, "TXT-1", "README.md starts with a frontmatter block that gray-matter cannot parse";
    BlankFile = "blank-file", Error, "TXT-1..3, AGD-3", "README.md, selector.md or a prompt is blank";
    UnknownTopLevelEntry = "unknown-top-level-entry", Error, "ROOT-3", "the package root holds an entry outside the allow-list";
    WrongEntryType = "wrong-entry-type", Error, "ROOT-3, AGD-1, AGD-2, REF-3, REF-4", "an entry is a file where a directory is required, or the reverse";
    HostMetadataInSource = "host-metadata-in-source", Error, "ROOT-3, VAL-2", "a source package must not contain .opencorvus-meta.json";
    RuntimeInternalEntry = "runtime-internal-entry", Error, "FBD-2, ID-6", "an entry uses a name reserved for runtime storage";
    Symlink = "symlink", Error, "FBD-1, ROOT-1", "symbolic links are not allowed anywhere in a package";
    SpecialFile = "special-file", Error, "FBD-3", "only regular files and directories are allowed";
    UndeclaredAgentDirectory = "undeclared-agent-directory", Error, "PROJ-3, AGD-1", "agents/<dir>/ has no matching capability_projection.agents entry";
    UnexpectedAgentEntry = "unexpected-agent-entry", Error, "AGD-2", "agents/<a>/ may hold only system.md, skills/, tools/, mcp/ and lib/";
    UndeclaredPrompt = "undeclared-prompt", Error, "AGD-3", "agents/<a>/system.md exists but its projection declares no prompt";
    SkillLayout = "skill-layout", Error, "SKL-1", "a file under skills/ is not inside a directory that holds SKILL.md";
    SkillUnsafePath = "skill-unsafe-path", Error, "SKL-2, P-REG", "a skill file path is unsafe";
    NestedSkillMd = "nested-skill-md", Error, "SKL-2", "a skill contains a second file named skill.md (any case)";
    SkillNotUtf8 = "skill-not-utf8", Error, "SKL-3", "SKILL.md must be valid UTF-8";
    SkillFrontmatter = "skill-frontmatter", Error, "SKL-4", "SKILL.md's YAML frontmatter is missing or invalid";
    SkillNameConflict = "skill-name-conflict", Warning, "SKL-5", "one projection receives two skills with the same frontmatter name; the runtime rejects this";
    SkillNameStyle = "skill-name-style", Note, "SKL-4", "a skill's frontmatter name is not kebab-case, or does not name the skill's folder";
    UnsupportedToolExtension = "unsupported-tool-extension", Error, "REF-3", "a file under tools/ does not end in .ts or .js";
    InvalidToolId = "invalid-tool-id", Error, "REF-3, TL-1", "a tool file name is not a lower-kebab-case id";
    UnsupportedMcpExtension = "unsupported-mcp-extension", Error, "REF-4", "a file under mcp/ does not end in .json or .jsonc";
    InvalidResourceName = "invalid-resource-name", Error, "REF-4, MCP-1", "an MCP server or capability name is empty or contains a slash or backslash";
    DuplicateResource = "duplicate-resource", Error, "REF-5", "two files produce the same package reference";
    InvalidUrl = "invalid-url", Error, "MCP-1", "an MCP server url is not an http: or https: URL";
    ImportCrossesBoundary = "import-crosses-boundary", Error, "TL-2", "a relative import leaves lib/, assets/ or the owner's agents/<a>/lib/";
    UnsupportedModule = "unsupported-module", Error, "TL-4", "a tool imports a module the sandbox does not provide";
    UnsupportedImportExtension = "unsupported-import-extension", Error, "TL-3", "a tool imports a library or asset file with an unsupported extension";
    NonLiteralImport = "non-literal-import", Error, "TL-4", "a dynamic import() or require() takes something other than one string literal";
    AbsoluteImport = "absolute-import", Error, "TL-4", "a tool imports an absolute path or a file: URL";
    UnresolvedImport = "unresolved-import", Error, "TL-2, TL-3", "a relative import does not resolve to a file of the package";
    ToolSyntax = "tool-syntax", Error, "TLP-1, TL-5", "a tool, or a file it imports, is not valid TypeScript or JavaScript: Bun cannot compile it";
    ToolDefaultExport = "tool-default-export", Warning, "TL-5", "a tool's default export is not a call of `tool` from @opencorvus-ai/plugin, so the runtime cannot load it as a tool";
    UnreachableLibraryFile = "unreachable-library-file", Error, "LIB-1", "a lib/ file is not imported by any projected tool";
    UnreachableAsset = "unreachable-asset", Error, "AST-1", "an assets/ file is not imported by any projected tool";
    ToolsNotCompiled = "tools-not-compiled", Note, "TLP-1", "tools were parsed and checked statically; bundling them with Bun and running them are left to the runtime";
    NonPortablePath = "non-portable-path", Error, "PATH-S, P-SDK", "a path is not portable (NFC, no reserved names or characters, no trailing dot or space)";
    LongPath = "long-path", Warning, "PATH-S", "a name is longer than 255 bytes or a path longer than 240 characters: it will not install everywhere, and `squad pack` refuses it";
    PathCaseCollision = "path-case-collision", Error, "PATH-S, SKL-2, CASE-1", "two paths differ only by case";
    ArchiveLimit = "archive-limit", Warning, "LIM-1, LIM-2", "the package is beyond the reference's archive import limits (512 files, 4 MiB a file, 16 MiB in all): `squad pack` and `squad publish` refuse it, a folder install does not";
    SourceInRuntimeStorage = "source-in-runtime-storage", Error, "VAL-1", "the source folder lies inside OpenCorvus runtime storage or an installed packages root";
    // Documents of the neighbouring formats (seed-formats.md): schema-level findings.
    OutOfRange = "out-of-range", Error, "JSON Schema minimum, maximum, minLength, maxLength, minItems, maxItems", "a number, a string's length or a list's size is outside its allowed range";
    PatternMismatch = "pattern-mismatch", Error, "JSON Schema pattern", "a string does not match its pattern (ECMA-262 semantics: ASCII \\d, `$` only at the very end)";
    InvalidFormat = "invalid-format", Error, "JSON Schema format", "a string is not in the format its schema asserts, for example an RFC 3339 date-time";
    SchemaViolation = "schema-violation", Error, "JSON Schema anyOf, oneOf, not, if/then", "the document breaks a combined rule of its schema";
    UnknownKind = "unknown-kind", Error, "seed-formats 0.2, 0.3", "a file under interop/ is of no format squad knows, by its place or its content";
    DocumentTooLarge = "document-too-large", Error, "seed-formats 0.3", "the document is larger than squad reads for one file";
    // agents.play@1 (seed-formats 1.4).
    PlayRoleDup = "play-role-dup", Error, "P-ROLE-DUP", "two roles of a play have the same id";
    PlayPhaseDup = "play-phase-dup", Error, "P-PHASE-DUP", "two phases of a play have the same id";
    PlayPhaseRole = "play-phase-role", Error, "P-PHASE-ROLE", "a phase names a role the play does not declare";
    PlayPhaseRoleDup = "play-phase-role-dup", Error, "P-PHASE-ROLE-DUP", "a phase names the same role twice";
    PlayCheckBy = "play-check-by", Error, "P-CHECK-BY", "a check's `by` is not a role of the play";
    PlayCheckOf = "play-check-of", Error, "P-CHECK-OF", "a check's `of` is not a role of the play";
    PlayCheckSelf = "play-check-self", Error, "P-CHECK-SELF", "a role checks its own work";
    PlayCount = "play-count", Error, "P-COUNT", "a role's count.min is greater than its count.max";
    PlaySplitRole = "play-split-role", Error, "P-SPLIT-ROLE", "budget.split gives a share to a role the play does not declare";
    PlaySplitNum = "play-split-num", Error, "P-SPLIT-NUM", "a budget share is not a number >= 0";
    PlaySplitSum = "play-split-sum", Error, "P-SPLIT-SUM", "the budget shares add up to more than 1 (summed exactly, in decimal)";
    PlayStopRounds = "play-stop-rounds", Warning, "P-STOP-ROUNDS", "stop.when is `rounds` but no `rounds` says how many";
    // squad import play / squad export play (seed-formats 1.8, 1.10).
    ImportPlayId = "import-play-id", Error, "E-PLAY-ID, ID-1, ID-6", "the play id is not a valid squad id; pass --rename OLD=NEW";
    ImportPlayAgentId = "import-play-agent-id", Error, "E-PLAY-AGENT-ID, ID-3, ID-6", "a role id is not a valid agent id; pass --rename OLD=NEW";
    ImportPlayDoes = "import-play-does", Error, "E-PLAY-DOES, TXT-3", "a role's `does` is blank, so its prompt would be blank";
    ImportPlayNodeId = "import-play-node-id", Error, "E-PLAY-NODE-ID, ID-1", "a generated workflow node id is invalid, too long or not unique";
    ImportPlayCount = "import-play-count", Warning, "W-PLAY-COUNT", "a role may run several at once; a squad node runs once per Task";
    ImportPlayModel = "import-play-model", Warning, "W-PLAY-MODEL", "a role's model hint has no manifest field; it is kept in play-extras.json and the prompt";
    ImportPlayAgent = "import-play-agent", Warning, "W-PLAY-AGENT", "a role's fixed agent has no manifest field; it is kept in play-extras.json and the prompt";
    ImportPlayLoop = "import-play-loop", Warning, "W-PLAY-LOOP", "the play repeats until its checks pass or for rounds; squad workflows run once per Task";
    ExportPlayId = "export-play-id", Error, "E-EXPORT-ID", "the squad id is longer than a play id may be (61)";
    ExportPlayName = "export-play-name", Error, "PLAY-3", "the squad label is longer than a play name may be (120)";
    ExportRoleId = "export-role-id", Error, "E-EXPORT-ROLE-ID", "an agent id is longer than a play role id may be (61)";
    ExportRoleName = "export-role-name", Error, "E-EXPORT-ROLE-NAME", "an agent label is longer than a play role name may be (80)";
    ExportDoes = "export-does", Error, "E-EXPORT-DOES", "an agent has no description, or one longer than 2000 characters, for the role's `does`";
    ExportRoles = "export-roles", Error, "E-EXPORT-ROLES", "the workflow uses more than 12 agents, the most a play may have";
    ExportPhases = "export-phases", Error, "E-EXPORT-PHASES", "the workflow is deeper than 20 layers, the most phases a play may have";
    ExportEdges = "export-edges", Warning, "W-EXPORT-EDGES", "the workflow's edges are sparser than play phases express; the export orders more strictly";
    ExportDupRole = "export-dup-role", Warning, "W-EXPORT-DUP-ROLE", "one agent backs two nodes of one layer; the phase lists it once";
    // ck-brain router contracts and runs (seed-formats 2.4, 2.6, 2.7).
    ContractRole = "contract-role", Error, "R-ROLE", "the contract has no `role` (or not router-orchestrator under --profile ck-brain)";
    ContractInReq = "contract-in-req", Error, "R-IN-REQ", "input.required does not include request and routes";
    ContractMin = "contract-min", Error, "R-MIN", "input.min_routes is not an integer >= 1";
    ContractRouteReq = "contract-route-req", Error, "R-ROUTE-REQ", "input.route_required does not include name, agent and description";
    ContractHandoff = "contract-handoff", Error, "R-HANDOFF", "handoff.required does not include task, context_notes and constraints";
    ContractStates = "contract-states", Error, "R-STATES", "output.states is not the four router states, or a state has no <state>_required list with status";
    ContractBehavior = "contract-behavior", Error, "R-BEHAVIOR", "a behavior key is missing or has a value other than the ck-brain contract's";
    ContractImpl = "contract-impl", Error, "R-IMPL", "an implementation file is missing or lacks name, description or developer_instructions";
    RouterConfig = "router-config", Error, "RC-CONFIG", "the routes are not a valid configuration (missing, too few, incomplete, duplicate names, blank agents)";
    RouterConfigSpurious = "router-config-spurious", Error, "RC-CONFIG-SPURIOUS", "the router answered invalid_configuration to a valid configuration";
    RouterOneRoute = "router-one-route", Error, "RC-ONE-ROUTE", "a routed or delegation_failed answer does not name exactly one route";
    RouterInvented = "router-invented", Error, "RC-INVENTED", "the answer names a route that is not in the input";
    RouterAgent = "router-agent", Error, "RC-AGENT", "the answer's agent is not the selected route's agent";
    RouterOneDelegation = "router-one-delegation", Error, "RC-ONE-DELEGATION", "delegation_failed reports more than one attempt or a fallback route";
    RouterHandoff = "router-handoff", Error, "RC-HANDOFF", "the answer's handoff lacks a field the contract requires";
    RouterAmbiguous = "router-ambiguous", Error, "RC-AMBIGUOUS", "a case expected `unrouted` with candidates and got something else";
    RouterVerbatim = "router-verbatim", Error, "RC-VERBATIM", "delegated_result is not the delegate's terminal result, verbatim";
    RoutesDesc = "routes-desc", Error, "E-ROUTE-DESC", "an agent has no description, so its route cannot be classified";
    RoutesNone = "routes-none", Error, "E-ROUTE-NONE", "the squad has no agents, so there is no route";
    // Open Floor (seed-formats 3.6, 3.7).
    OfpType = "ofp-type", Error, "O-TYPE", "openFloor or conversation is not an object";
    OfpEventType = "ofp-eventtype", Error, "O-EVENTTYPE", "an event has no eventType";
    OfpToEmpty = "ofp-to-empty", Error, "O-TO-EMPTY", "an event's `to` names neither speakerUri nor serviceUrl";
    OfpInviteTo = "ofp-invite-to", Warning, "OFP 1.13", "an invite has no `to`, so it invites everyone";
    OfpPublishAlias = "ofp-publish-alias", Warning, "O-PUBLISH-ALIAS", "the event uses the docs spelling publishManifest; the spec says publishManifests";
    OfpRetired = "ofp-retired", Warning, "O-RETIRED", "findAssistant and proposeAssistant were renamed getManifests and publishManifests in 0.9.4";
    OfpUtteranceDe = "ofp-utterance-de", Error, "O-UTTERANCE-DE", "an utterance's dialogEvent is not a valid dialog event";
    OfpUtteranceText = "ofp-utterance-text", Error, "O-UTTERANCE-TEXT", "an utterance's dialog event has no text feature with mimeType text/plain";
    OfpContextDe = "ofp-context-de", Error, "O-CONTEXT-DE", "a dialogHistory item is not a valid dialog event";
    OfpManifests = "ofp-manifests", Error, "O-MANIFESTS", "a servicing or discovery manifest is not a valid assistant manifest, or its score is outside [0, 1]";
    OfpScope = "ofp-scope", Error, "O-SCOPE", "recommendScope is not internal, external or all";
    OfpReasonToken = "ofp-reason-token", Warning, "O-REASON-TOKEN", "a reason uses an @token not documented for its event type";
    OfpConversantKeys = "ofp-conversant-keys", Warning, "O-CONVERSANT-KEYS", "a conversant has a key the schema does not know, such as persistentState";
    OfpManifestSpeaker = "ofp-manifest-speaker", Error, "M-SPEAKER", "an assistant manifest has no identification.speakerUri";
    OfpManifestSynopsis = "ofp-manifest-synopsis", Error, "M-SYNOPSIS", "an assistant manifest has no identification.synopsis";
    OfpSynopsisLong = "ofp-synopsis-long", Warning, "W-OFP-SYNOPSIS-LONG", "a synopsis is longer than about 75 characters (5 seconds spoken)";
    OfpDialogSpanXor = "ofp-dialog-span-xor", Error, "D-SPAN-XOR", "a span has both (or neither) startTime and startOffset, or both endTime and endOffset";
    OfpDialogConfidence = "ofp-dialog-confidence", Error, "D-CONFIDENCE", "a token's confidence is outside [0, 1]";
    OfpDialogEncoding = "ofp-dialog-encoding", Error, "D-ENCODING", "a feature's encoding is not ISO-8859-1 or UTF-8";
    // AgentHandoff (seed-formats 4.3, 4.5).
    HandoffDodBlank = "handoff-dod-blank", Warning, "H-DOD-BLANK", "a definition_of_done item is blank";
    HandoffApprovalDup = "handoff-approval-dup", Warning, "H-APPROVAL-DUP", "needs_approval_for repeats an action";
    HandoffZeroBudgetSpend = "handoff-zero-budget-spend", Warning, "H-ZERO-BUDGET-SPEND", "budget_eur is 0 (no spend allowed) while spend needs approval";
    HandoffFrom = "handoff-from", Error, "H-FROM", "`from` is neither orchestrator nor an agent of the squad";
    HandoffTo = "handoff-to", Error, "H-TO", "`to` is not an agent of the squad";
    HandoffFromWorker = "handoff-from-worker", Warning, "W-H-FROM-WORKER", "a worker hands off; in a squad only the Orchestrator dispatches workers";
    HandoffDeadlinePast = "handoff-deadline-past", Warning, "H-DEADLINE-PAST", "the deadline is not after --now";
    // Collaboration definitions (package-format 9).
    CollabSchemaVersion = "collab-schema-version", Error, "COL-1", "schema_version must equal 1";
    CollabStageExecution = "collab-stage-execution", Error, "COL-2", "stage_execution must equal \"mission_task\"";
    CollabId = "collab-id", Error, "COL-3, COL-6, COL-8, COL-9, COL-11, COL-12", "an id or evidence key is not a canonical lower-kebab-case identifier";
    CollabLabel = "collab-label", Error, "COL-4", "the label is blank";
    CollabNoStages = "collab-no-stages", Error, "COL-5", "a collaboration needs at least one stage";
    CollabDuplicate = "collab-duplicate", Error, "COL-6, COL-8, COL-9, COL-11, COL-12", "a list repeats an identifier, or two stages share an id";
    CollabDuplicateManifest = "collab-duplicate-manifest", Error, "COL-7", "two supplied squads have the same id";
    CollabManifest = "collab-manifest", Error, "COL-7", "a supplied squad's manifest is invalid";
    CollabDependsOn = "collab-depends-on", Error, "COL-9", "a stage depends on an unknown or later stage";
    CollabUnknownSquad = "collab-unknown-squad", Error, "COL-10", "a stage names a squad that was not supplied";
    CollabUnknownWorkflow = "collab-unknown-workflow", Error, "COL-10", "a stage names a workflow its squad does not declare";
    CollabSquadsUnchecked = "collab-squads-unchecked", Note, "COL-7, COL-10", "squad and workflow ids were not checked; pass the squads with `squad collab validate --squad`";
    CollabEvidence = "collab-evidence", Error, "COL-11", "a stage consumes evidence no input or earlier dependency provides";
    CollabNoEvidence = "collab-no-evidence", Error, "COL-12", "a stage produces no evidence";
    CollabDoubleProducer = "collab-double-producer", Error, "COL-12", "two stages produce the same evidence";
    CollabOutput = "collab-output", Error, "COL-13", "an output is not produced by any stage";
    // A project's squads: squads.jsonc and squads.lock (docs/project-files.md).
    SquadsSyntax = "squads-syntax", Error, "PRJ-1", "`squads.jsonc` is not valid JSONC (JSON with comments and trailing commas)";
    SquadsWrongType = "squads-wrong-type", Error, "PRJ-1, PRJ-2", "a value in `squads.jsonc` has the wrong JSON type";
    SquadsUnknownKey = "squads-unknown-key", Error, "PRJ-2", "`squads.jsonc` has a key squad does not know: a typo, or a key of a newer squad";
    SquadsInvalidName = "squads-invalid-name", Error, "PRJ-3", "a squad is not named `<namespace>/<id>` with valid ids";
    SquadsMissingKey = "squads-missing-key", Error, "PRJ-4, PRJ-7", "a squad has no `source`, or an https:// source has no `sha256`";
    SquadsInvalidSource = "squads-invalid-source", Error, "PRJ-4..8", "a source is not a folder, an archive, an oci:// reference, an https:// archive with its SHA-256 or a valid OpenCorvus install link";
    SquadsInvalidVersion = "squads-invalid-version", Error, "PRJ-9", "`version` is not YYYY.MM.DD.N, or is given where the source already fixes the version";
    SquadsDuplicate = "squads-duplicate", Error, "PRJ-3, PRJ-10", "a squad is declared twice, or two squads share an id (one id per project scope)";
    SquadsInvalidTrust = "squads-invalid-trust", Error, "PRJ-11", "a signature policy entry is not a minisign public key, a key id, a namespace or a YYYY-MM-DD expiry";
    SquadsInvalidAudit = "squads-invalid-audit", Error, "PRJ-13", "the audit policy is not a severity, or an accepted finding is not a squad, a package digest, an audit code and a reason";
    SquadsInvalidReleaseAge = "squads-invalid-release-age", Error, "PRJ-14", "`minimum_release_age` is not a whole number of days, hours or minutes (`3d`, `12h`, `90m`)";
    SquadsLockInvalid = "squads-lock-invalid", Error, "PLK-1..4", "`squads.lock` is not a lock this squad can read: not JSON, not the lock schema, or a newer lock_version";
    // squad audit: what a valid squad's files would make its agents do (docs/capabilities.md, "Audit").
    ToolWritesFiles = "tool-writes-files", Note, "AUD-T1", "a package tool writes, moves or deletes files (node:fs, Bun.write)";
    ToolReachesNetwork = "tool-reaches-network", Warning, "AUD-T2", "a package tool sends requests to other hosts through a runtime global (fetch, WebSocket, Bun.connect and the like)";
    ToolSpawnsProcess = "tool-spawns-process", Error, "AUD-T3", "a package tool starts programs (Bun.spawn, Bun.$): the module policy bans node:child_process, not these";
    ToolDynamicCode = "tool-dynamic-code", Error, "AUD-T4", "a package tool makes code at run time: eval, the Function constructor, a string given to a timer, a global reached by a computed name";
    ToolLoadsCode = "tool-loads-code", Error, "AUD-T5", "a package tool loads code the package's text does not show: WebAssembly, a worker, import.meta.require, a Bun plugin";
    ToolEncodedBlob = "tool-encoded-blob", Warning, "AUD-T6", "a package tool carries a long base64 or hex literal, which no one can review by reading it";
    ToolEncodedPayload = "tool-encoded-payload", Error, "AUD-T7", "a package tool carries a base64 or hex literal that decodes to code or to a URL";
    ToolReadsEnv = "tool-reads-env", Note, "AUD-T8", "a package tool reads environment variables, where credentials usually are";
    McpPlainHttp = "mcp-plain-http", Warning, "AUD-M1", "an MCP server is reached over plain http:// on another host, where what the agent sends can be read and changed on the way";
    McpLiteralSecret = "mcp-literal-secret", Error, "AUD-M2, AUD-M3", "an MCP declaration holds a credential as a literal value: in a header, in the URL, or as oauth.clientSecret";
    PromptOverride = "prompt-override", Error, "AUD-P1, AUD-Q1", "a prompt tells the agent to set its other instructions aside, or to keep something from the user";
    PromptCredentialAccess = "prompt-credential-access", Warning, "AUD-P2, AUD-Q1", "a prompt asks the agent to read where credentials are kept (~/.ssh, .env, cloud keys, tokens)";
    PromptSendsData = "prompt-sends-data", Warning, "AUD-P3, AUD-Q1", "a prompt asks the agent to send data to a URL";
    PromptExfiltration = "prompt-exfiltration", Error, "AUD-P4, AUD-Q1", "a prompt asks the agent to send credentials, secrets or the conversation to a URL";
    PromptInvisibleText = "prompt-invisible-text", Error, "AUD-P5", "a prompt holds characters a reader cannot see: zero-width characters, bidirectional controls, Unicode tags";
    PromptHiddenComment = "prompt-hidden-comment", Warning, "AUD-P6", "an HTML comment in a prompt, invisible once the file is rendered, gives the agent instructions";
    PromptPipeToShell = "prompt-pipe-to-shell", Error, "AUD-P7, AUD-Q1", "a prompt pipes a downloaded script into a shell (curl … | sh)";
    IdleAgentGrants = "idle-agent-grants", Warning, "AUD-G1", "an agent that no workflow runs holds tools that run commands, write files, reach the network or author squads";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_kebab_case() {
        let mut names: Vec<_> = Code::ALL.iter().map(|code| code.as_str()).collect();
        for name in &names {
            assert!(
                name.chars()
                    .all(|c| c.is_ascii_lowercase() || c == '-' || c.is_ascii_digit()),
                "{name}"
            );
            assert_eq!(Code::from_name(name).map(Code::as_str), Some(*name));
        }
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Code::ALL.len());
    }

    #[test]
    fn rule_ids_spell_out_ranges_and_skip_what_is_not_an_id() {
        assert_eq!(Code::ForeignPackageRef.rule_ids(), ["PREF-1", "REF-1"]);
        assert_eq!(Code::UnknownBaseRole.rule_ids(), ["AG-3a"]);
        assert_eq!(
            Code::ToolNotSuppliedByRole.rule_ids(),
            ["TOOL-1", "TOOL-2", "TOOL-T2", "TOOL-T3", "TOOL-T4"]
        );
        assert_eq!(
            Code::BlankFile.rule_ids(),
            ["TXT-1", "TXT-2", "TXT-3", "AGD-3"]
        );
        assert_eq!(Code::MissingField.rule_ids().len(), 13 + 8 + 1);
        assert!(Code::OutOfRange.rule_ids().is_empty());
        assert!(Code::UnknownKind.rule_ids().is_empty());
        assert!(Code::OfpInviteTo.rule_ids().is_empty());
        // Every code but those citing only schema keywords or sections names a rule.
        let without: Vec<_> = Code::ALL
            .iter()
            .filter(|code| code.rule_ids().is_empty())
            .map(|code| code.as_str())
            .collect();
        assert_eq!(
            without,
            [
                "out-of-range",
                "pattern-mismatch",
                "invalid-format",
                "schema-violation",
                "unknown-kind",
                "document-too-large",
                "ofp-invite-to"
            ]
        );
    }
}
