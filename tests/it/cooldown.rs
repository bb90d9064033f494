//! `minimum_release_age` (PRJ-14) with the real binary: squads published to Debian's
//! `docker-registry` on loopback, an index of them built at two controlled times (`SQUAD_NOW`,
//! so each version's `published` is known) and served by `python3 -m http.server`. A version
//! inside the cooldown is held back by `add NAME`, `update` and `outdated` (the older one is
//! taken, and the output says why), and by `install --scope project`; taken when named
//! exactly, and taken once old enough; a
//! registry squad the index has no record of is refused unless its version is named.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::http_support::StaticServer;
use crate::oci_support::{Auth, Registry};
use crate::registry::{template, variant};
use crate::support::{Sandbox, text};

const OLD: &str = "2026.11.30.1";
const NEW: &str = "2026.12.02.1";
/// When the index build first saw each version.
const OLD_SEEN: &str = "2026-12-01T00:00:00Z";
const NEW_SEEN: &str = "2026-12-03T00:00:00Z";
/// One day after NEW_SEEN (NEW is too young for `3d`, OLD is old enough) and three days after.
const NEXT_DAY: &str = "2026-12-04T00:00:00Z";
const THREE_DAYS_ON: &str = "2026-12-06T00:00:00Z";

struct World {
    sandbox: Sandbox,
    registry: Registry,
    server: StaticServer,
}

impl World {
    /// example/minimal OLD published and indexed at OLD_SEEN, NEW published and indexed at
    /// NEW_SEEN (the rebuild keeps OLD's publish time); example/delivery published to another
    /// repository base that the index does not list.
    fn new() -> World {
        let registry = Registry::start(Auth::None);
        let sandbox = Sandbox::new()
            .with_env("SQUAD_TODAY", "2026-12-03")
            .with_env("SQUAD_CACHE_DIR", Path::new("cache"));
        let root = sandbox.root.clone();
        let base = registry.oci("squads");
        let site = root.join("site");
        let index = site.join("index");
        let build = |now: &str| {
            run(
                &sandbox,
                now,
                &["index", "build", &base, "-o", index.to_str().unwrap()],
                0,
            )
        };
        let minimal = template("minimal");
        run(
            &sandbox,
            OLD_SEEN,
            &["publish", minimal.to_str().unwrap(), &base],
            0,
        );
        build(OLD_SEEN);
        let newer = variant(&root.join("variants"), "minimal", NEW, "\nnewer\n");
        run(
            &sandbox,
            NEW_SEEN,
            &["publish", newer.to_str().unwrap(), &base],
            0,
        );
        build(NEW_SEEN);
        let delivery = template("delivery");
        run(
            &sandbox,
            NEW_SEEN,
            &[
                "publish",
                delivery.to_str().unwrap(),
                &registry.oci("elsewhere"),
            ],
            0,
        );
        let server = StaticServer::start(&site);
        World {
            sandbox,
            registry,
            server,
        }
    }

    /// A project whose squads.jsonc holds `settings` (top-level members, each ending with a
    /// comma) and no squad.
    fn project(&self, folder: &str, settings: &str) -> PathBuf {
        let project = self.sandbox.root.join(folder);
        std::fs::create_dir_all(project.join(".opencorvus")).unwrap();
        std::fs::write(
            project.join(".opencorvus/squads.jsonc"),
            format!("{{\n{settings}\n  \"squads\": {{}}\n}}\n"),
        )
        .unwrap();
        project
    }

    fn with_index(&self, folder: &str) -> PathBuf {
        self.project(
            folder,
            &format!(
                "  \"index\": \"{}\",\n  \"minimum_release_age\": \"3d\",",
                self.server.url("index/")
            ),
        )
    }
}

/// Runs squad at the moment `now`, expecting `code`.
fn run(sandbox: &Sandbox, now: &str, args: &[&str], code: i32) -> (String, String) {
    let output = sandbox
        .command(args)
        .env("SQUAD_NOW", now)
        .output()
        .unwrap();
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(
        output.status.code(),
        Some(code),
        "{args:?} at {now}: {stdout}{stderr}"
    );
    (stdout, stderr)
}

fn json(sandbox: &Sandbox, now: &str, args: &[&str], code: i32) -> Value {
    let mut args = args.to_vec();
    args.extend(["--format", "json"]);
    let (stdout, stderr) = run(sandbox, now, &args, code);
    serde_json::from_str(&stdout)
        .unwrap_or_else(|error| panic!("{args:?}: {error}: {stdout}{stderr}"))
}

fn declared(project: &Path) -> String {
    std::fs::read_to_string(project.join(".opencorvus/squads.jsonc")).unwrap()
}

#[test]
fn a_version_inside_the_cooldown_is_held_back_until_named_or_old_enough() {
    let world = World::new();
    let sandbox = &world.sandbox;
    let held_new = serde_json::json!([{ "version": NEW, "published": NEW_SEEN }]);

    // `add NAME` a day after NEW was first seen: OLD is taken, and the output says why.
    let project = world.with_index("project-a");
    let project_arg = project.to_str().unwrap();
    let (_, stderr) = run(
        sandbox,
        NEXT_DAY,
        &["add", "example/minimal", "--project", project_arg],
        0,
    );
    assert!(
        stderr.contains(&format!(
            "Held back example/minimal {NEW} (published {NEW_SEEN}, 1 d 0 h ago): younger than squads.jsonc's `minimum_release_age` of `3d`; took {OLD}"
        )),
        "{stderr}"
    );
    assert!(
        declared(&project).contains(&format!("\"version\": \"{OLD}\"")),
        "{}",
        declared(&project)
    );

    // The JSON of the same choice, in a second project.
    let other = world.with_index("project-b");
    let added = json(
        sandbox,
        NEXT_DAY,
        &[
            "add",
            "example/minimal",
            "--project",
            other.to_str().unwrap(),
        ],
        0,
    );
    assert_eq!(added["squad"]["version"], OLD, "{added}");
    assert_eq!(added["held_back"], held_new, "{added}");

    // `outdated` lists NEW as newer, and says the cooldown holds it back.
    let outdated = json(
        sandbox,
        NEXT_DAY,
        &["outdated", "--project", project_arg],
        0,
    );
    let row = &outdated["squads"][0];
    assert_eq!(row["newer"], serde_json::json!([NEW]), "{outdated}");
    assert_eq!(row["held_back"], held_new, "{outdated}");
    let (table, _) = run(
        sandbox,
        NEXT_DAY,
        &["outdated", "--project", project_arg],
        0,
    );
    assert!(
        table.contains(&format!(
            "held back by minimum_release_age: {NEW} (published {NEW_SEEN}, 1 d 0 h ago)"
        )),
        "{table}"
    );

    // `update` the same day keeps OLD, saying why; the declared version stays.
    let updated = json(sandbox, NEXT_DAY, &["update", "--project", project_arg], 0);
    let squad = &updated["squads"][0];
    assert_eq!(squad["version"], OLD, "{updated}");
    assert_eq!(squad["operation"], "unchanged", "{updated}");
    assert_eq!(squad["held_back"], held_new, "{updated}");
    let (_, stderr) = run(sandbox, NEXT_DAY, &["update", "--project", project_arg], 0);
    assert!(
        stderr.contains(&format!(
            "Held back example/minimal {NEW} (published {NEW_SEEN}"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "Unchanged example/minimal {OLD} (the newest old enough)"
        )),
        "{stderr}"
    );
    assert!(declared(&project).contains(&format!("\"version\": \"{OLD}\"")));

    // Named exactly, NEW is taken the same day.
    let named = world.with_index("project-c");
    let repository = format!("{}/example/minimal", world.registry.oci("squads"));
    let added = json(
        sandbox,
        NEXT_DAY,
        &[
            "add",
            &format!("{repository}:{NEW}"),
            "--project",
            named.to_str().unwrap(),
        ],
        0,
    );
    assert_eq!(added["squad"]["version"], NEW, "{added}");
    assert_eq!(added["held_back"], serde_json::json!([]), "{added}");

    // `install --scope project` of the repository alone holds NEW back the same way.
    let direct = world.with_index("project-d");
    let installed = json(
        sandbox,
        NEXT_DAY,
        &[
            "install",
            &repository,
            "--scope",
            "project",
            "--project",
            direct.to_str().unwrap(),
        ],
        0,
    );
    assert_eq!(installed["version"], OLD, "{installed}");
    let warnings = installed["warnings"].to_string();
    assert!(
        warnings.contains(&format!("example/minimal: {NEW} (published {NEW_SEEN}")),
        "{installed}"
    );

    // Three days after it was first seen, `update` takes NEW and moves the declared version.
    let updated = json(
        sandbox,
        THREE_DAYS_ON,
        &["update", "--project", project_arg],
        0,
    );
    let squad = &updated["squads"][0];
    assert_eq!(squad["version"], NEW, "{updated}");
    assert_eq!(squad["held_back"], serde_json::json!([]), "{updated}");
    assert!(declared(&project).contains(&format!("\"version\": \"{NEW}\"")));
    let outdated = json(
        sandbox,
        THREE_DAYS_ON,
        &["outdated", "--project", project_arg],
        0,
    );
    assert_eq!(
        outdated["squads"][0]["newer"],
        serde_json::json!([]),
        "{outdated}"
    );
}

#[test]
fn a_registry_squad_of_unknown_age_is_refused_unless_its_version_is_named() {
    let world = World::new();
    let sandbox = &world.sandbox;
    let repository = format!("{}/example/delivery", world.registry.oci("elsewhere"));
    let state = |project: &Path| {
        let mut state = crate::install::listing(project);
        state.push(declared(project));
        state
    };

    // The project's index does not list that repository: refused, nothing written.
    let project = world.with_index("project-a");
    let project_arg = project.to_str().unwrap();
    let before = state(&project);
    let refused = json(
        sandbox,
        NEXT_DAY,
        &["add", &repository, "--project", project_arg],
        1,
    );
    let failure = &refused["failures"][0];
    assert_eq!(failure["refused"], true, "{refused}");
    let message = failure["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("{OLD} is the newest version at {repository}"))
            && message.contains("does not list")
            && message.contains("`minimum_release_age` of `3d`"),
        "{message}"
    );
    let hint = failure["hint"].as_str().unwrap();
    assert!(
        hint.contains(&format!(
            "name the version exactly (`squad add {repository}:{OLD}`"
        )) && hint.contains("declare an `index` that lists that repository"),
        "{hint}"
    );
    let mut after = state(&project);
    after.retain(|path| !path.ends_with(".squads-sync.lock"));
    let mut before = before;
    before.retain(|path| !path.ends_with(".squads-sync.lock"));
    assert_eq!(after, before, "a refusal writes nothing");

    // Without any index, the same refusal says to declare one.
    let bare = world.project("project-b", "  \"minimum_release_age\": \"90m\",");
    let (_, stderr) = run(
        sandbox,
        NEXT_DAY,
        &["add", &repository, "--project", bare.to_str().unwrap()],
        1,
    );
    assert!(
        stderr.contains("the project declares no `index`")
            && stderr.contains("declare an `index` that lists it"),
        "{stderr}"
    );

    // `sync` of a declaration without a version is refused the same way.
    std::fs::write(
        bare.join(".opencorvus/squads.jsonc"),
        format!(
            "{{\n  \"minimum_release_age\": \"90m\",\n  \"squads\": {{\n    \"example/delivery\": {{ \"source\": \"{repository}\" }},\n  }}\n}}\n"
        ),
    )
    .unwrap();
    let synced = json(
        sandbox,
        NEXT_DAY,
        &["sync", "--project", bare.to_str().unwrap()],
        1,
    );
    assert!(
        synced["failures"][0]["message"]
            .as_str()
            .unwrap()
            .contains("a version of unknown age is not taken unless it is named"),
        "{synced}"
    );

    // Named exactly, it is taken.
    let added = json(
        sandbox,
        NEXT_DAY,
        &[
            "add",
            &format!("{repository}:{OLD}"),
            "--project",
            project_arg,
        ],
        0,
    );
    assert_eq!(added["squad"]["version"], OLD, "{added}");
}

#[test]
fn an_invalid_minimum_release_age_is_a_diagnostic_at_its_value() {
    let sandbox = Sandbox::new();
    for (value, column) in [("\"3 days\"", 26), ("\"1.5d\"", 26), ("\"72\"", 26)] {
        let project = sandbox.root.join("project");
        std::fs::create_dir_all(project.join(".opencorvus")).unwrap();
        std::fs::write(
            project.join(".opencorvus/squads.jsonc"),
            format!("{{\n  \"minimum_release_age\": {value},\n  \"squads\": {{}}\n}}\n"),
        )
        .unwrap();
        let output = sandbox.run(&["sync", "--project", project.to_str().unwrap()]);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains("error[squads-invalid-release-age]")
                && stderr.contains(&format!(".opencorvus/squads.jsonc:2:{column}")),
            "{value}: {stderr}"
        );
    }
}
