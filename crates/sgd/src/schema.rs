//! The SGD `schema.json` format (Rastogi et al. 2020): a list of services, each with slots and
//! intents. These are the paper's `Intent⟨n, d, R, O, t⟩` and `Slot⟨name, type, vals⟩` terms.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One SGD service.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Service {
    pub service_name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub slots: Vec<Slot>,
    #[serde(default)]
    pub intents: Vec<Intent>,
}

/// A slot of a service; slots are shared by the service's intents.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Slot {
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub is_categorical: bool,
    #[serde(default)]
    pub possible_values: Vec<String>,
}

/// An intent: the paper's `Intent⟨n, d, R, O, t⟩`, plus the result slots and the defaults of
/// optional slots, which the paper's model leaves out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Intent {
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub is_transactional: bool,
    #[serde(default)]
    pub required_slots: Vec<String>,
    /// Optional slots with their default values (strings in the dataset), in file order.
    #[serde(default)]
    pub optional_slots: Map<String, Value>,
    #[serde(default)]
    pub result_slots: Vec<String>,
}

impl Service {
    pub fn slot(&self, name: &str) -> Option<&Slot> {
        self.slots.iter().find(|s| s.name == name)
    }

    pub fn intent(&self, name: &str) -> Option<&Intent> {
        self.intents.iter().find(|i| i.name == name)
    }
}

impl Intent {
    /// The slots the intent takes, required first, each with whether it is required.
    pub fn arguments(&self) -> Vec<(&str, bool)> {
        let required = self.required_slots.iter().map(|s| (s.as_str(), true));
        let optional = self.optional_slots.keys().map(|s| (s.as_str(), false));
        required.chain(optional).collect()
    }
}

/// Why a schema file could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaError {
    pub message: String,
}

impl std::fmt::Display for SchemaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SchemaError {}

/// Reads an SGD `schema.json` (a list of services), checking that every slot an intent names
/// is declared.
pub fn parse(text: &str) -> Result<Vec<Service>, SchemaError> {
    let services: Vec<Service> = serde_json::from_str(text).map_err(|e| SchemaError {
        message: format!("not an SGD schema (a JSON list of services): {e}"),
    })?;
    for service in &services {
        check_slots(service)?;
    }
    Ok(services)
}

fn check_slots(service: &Service) -> Result<(), SchemaError> {
    if service.intents.is_empty() {
        return Err(SchemaError {
            message: format!("service {} has no intents", service.service_name),
        });
    }
    for intent in &service.intents {
        let named = intent
            .arguments()
            .into_iter()
            .map(|(s, _)| s)
            .chain(intent.result_slots.iter().map(String::as_str));
        for slot in named {
            if service.slot(slot).is_none() {
                return Err(SchemaError {
                    message: format!(
                        "service {}: intent {} names slot `{slot}`, which the service does not declare",
                        service.service_name, intent.name
                    ),
                });
            }
        }
    }
    Ok(())
}

/// The distinct services of several schema files, in order of first appearance, with how many
/// entries each had and whether the entries agree.
#[derive(Clone, Debug)]
pub struct Distinct {
    pub service: Service,
    pub entries: usize,
    pub identical: bool,
}

pub fn distinct(files: &[Vec<Service>]) -> Vec<Distinct> {
    let mut out: Vec<Distinct> = Vec::new();
    for service in files.iter().flatten() {
        match out
            .iter_mut()
            .find(|d| d.service.service_name == service.service_name)
        {
            Some(d) => {
                d.entries += 1;
                d.identical &= d.service == *service;
            }
            None => out.push(Distinct {
                service: service.clone(),
                entries: 1,
                identical: true,
            }),
        }
    }
    out
}
