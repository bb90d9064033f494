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
    UnreachableLibraryFile = "unreachable-library-file", Error, "LIB-1", "a lib/ file is not imported by any projected tool";
    UnreachableAsset = "unreachable-asset", Error, "AST-1", "an assets/ file is not imported by any projected tool";
    ToolsNotCompiled = "tools-not-compiled", Note, "TLP-1", "tool imports were checked statically; compiling and the tool's default export are left to the runtime";
    NonPortablePath = "non-portable-path", Error, "PATH-S, P-SDK", "a path is not portable (NFC, no reserved names or characters, no trailing dot or space)";
    LongPath = "long-path", Warning, "PATH-S", "a name is longer than 255 bytes or a path longer than 240 characters: it will not install everywhere, and `squad pack` refuses it";
    PathCaseCollision = "path-case-collision", Error, "PATH-S, SKL-2, CASE-1", "two paths differ only by case";
    SourceInRuntimeStorage = "source-in-runtime-storage", Error, "VAL-1", "the source folder lies inside OpenCorvus runtime storage or an installed packages root";
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
}
