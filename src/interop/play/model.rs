//! A play that passed validation, as data for the converters.

use serde_json::Value;

#[derive(Debug, Clone)]
pub struct Play {
    pub id: String,
    pub version: Option<u64>,
    pub name: String,
    pub summary: Option<String>,
    pub roles: Vec<Role>,
    /// `None` when the play has no `phases`.
    pub phases: Option<Vec<Phase>>,
    pub checks: Vec<Check>,
    pub stop_when: String,
    pub stop_rounds: Option<u64>,
    /// Role id → share, as written.
    pub split: Vec<(String, Value)>,
    pub visibility: Option<String>,
    pub author: Option<Value>,
}

#[derive(Debug, Clone)]
pub struct Role {
    pub id: String,
    pub name: Option<String>,
    pub does: String,
    pub model: Option<String>,
    pub agent: Option<String>,
    pub count_min: Option<u64>,
    pub count_max: Option<u64>,
    pub consults: Option<u64>,
    /// The role as written, for the extras sidecar.
    pub raw: Value,
}

#[derive(Debug, Clone)]
pub struct Phase {
    pub id: String,
    pub name: Option<String>,
    pub roles: Vec<String>,
    pub parallel: bool,
}

#[derive(Debug, Clone)]
pub struct Check {
    pub by: String,
    pub of: String,
    pub bar: Option<String>,
}

fn text(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn whole(value: &Value, key: &str) -> Option<u64> {
    value
        .get(key)
        .and_then(Value::as_f64)
        .filter(|number| *number >= 0.0 && number.fract() == 0.0)
        .map(|number| number as u64)
}

impl Play {
    /// The model of a play value that passed [`super::check`] without errors.
    pub fn from_value(value: &Value) -> Option<Play> {
        let roles = value
            .get("roles")?
            .as_array()?
            .iter()
            .map(|role| {
                Some(Role {
                    id: text(role, "id")?,
                    name: text(role, "name"),
                    does: text(role, "does")?,
                    model: text(role, "model"),
                    agent: text(role, "agent"),
                    count_min: role.get("count").and_then(|count| whole(count, "min")),
                    count_max: role.get("count").and_then(|count| whole(count, "max")),
                    consults: whole(role, "consults"),
                    raw: role.clone(),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        let phases = match value.get("phases") {
            None => None,
            Some(phases) => Some(
                phases
                    .as_array()?
                    .iter()
                    .map(|phase| {
                        Some(Phase {
                            id: text(phase, "id")?,
                            name: text(phase, "name"),
                            roles: phase
                                .get("roles")?
                                .as_array()?
                                .iter()
                                .map(|role| role.as_str().map(str::to_owned))
                                .collect::<Option<Vec<_>>>()?,
                            parallel: phase.get("parallel").and_then(Value::as_bool) == Some(true),
                        })
                    })
                    .collect::<Option<Vec<_>>>()?,
            ),
        };
        let checks = value
            .get("checks")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|check| {
                Some(Check {
                    by: text(check, "by")?,
                    of: text(check, "of")?,
                    bar: text(check, "bar"),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        let stop = value.get("stop")?;
        Some(Play {
            id: text(value, "id")?,
            version: whole(value, "version"),
            name: text(value, "name")?,
            summary: text(value, "summary"),
            roles,
            phases,
            checks,
            stop_when: text(stop, "when")?,
            stop_rounds: whole(stop, "rounds"),
            split: value
                .get("budget")
                .and_then(|budget| budget.get("split"))
                .and_then(Value::as_object)
                .map(|split| split.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                .unwrap_or_default(),
            visibility: text(value, "visibility"),
            author: value.get("author").cloned(),
        })
    }

    pub fn role(&self, id: &str) -> Option<&Role> {
        self.roles.iter().find(|role| role.id == id)
    }
}
