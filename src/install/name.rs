//! How a user names an installed package: `namespace/id`, as `squad list` prints it, or the
//! bare `id` (an id is unique in a scope, UNQ-1, so it is enough).

/// `namespace/id` or `id`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageName {
    pub namespace: Option<String>,
    pub id: String,
}

impl PackageName {
    /// Parses `namespace/id` or `id`; the message says what is wrong (ID-1, ID-2).
    pub fn parse(text: &str) -> Result<PackageName, String> {
        let (namespace, id) = match text.split_once('/') {
            Some((namespace, id)) => (Some(namespace), id),
            None => (None, text),
        };
        for part in namespace.into_iter().chain([id]) {
            if let Some((_, problem)) =
                crate::manifest::id_problem(part, crate::manifest::IdKind::Package)
            {
                return Err(format!(
                    "`{text}` is not a package name (`namespace/id` or `id`): {problem}"
                ));
            }
        }
        Ok(PackageName {
            namespace: namespace.map(str::to_owned),
            id: id.to_owned(),
        })
    }

    /// A name for the id alone.
    pub fn id(id: &str) -> PackageName {
        PackageName {
            namespace: None,
            id: id.to_owned(),
        }
    }

    /// Whether the package `namespace/id` is the one this name means.
    pub fn names(&self, namespace: &str, id: &str) -> bool {
        id == self.id
            && self
                .namespace
                .as_ref()
                .is_none_or(|wanted| wanted == namespace)
    }
}

impl std::fmt::Display for PackageName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.namespace {
            Some(namespace) => write!(f, "{namespace}/{}", self.id),
            None => f.write_str(&self.id),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_namespace_and_id_or_the_id_alone() {
        assert_eq!(
            PackageName::parse("acme/review").unwrap(),
            PackageName {
                namespace: Some("acme".to_owned()),
                id: "review".to_owned()
            }
        );
        assert_eq!(
            PackageName::parse("review").unwrap(),
            PackageName::id("review")
        );
        assert_eq!(
            PackageName::parse("acme/review").unwrap().to_string(),
            "acme/review"
        );
        for bad in [
            "",
            "acme/",
            "/review",
            "a/b/c",
            "Acme/review",
            "./pkg",
            "pkg.zip",
        ] {
            assert!(PackageName::parse(bad).is_err(), "{bad}");
        }
    }
}
