//! Provider profiles: what OpenAI, Gemini and Anthropic refuse in tool definitions beyond the
//! MCP specification (name patterns and lengths, tool counts, description lengths, schema
//! keywords). Each rule's explanation page cites the provider documentation or issue threads
//! where the refusal is recorded.

mod anthropic;
mod gemini;
mod openai;

use super::context::Context;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    OpenAi,
    Gemini,
    Anthropic,
}

impl Profile {
    pub fn parse(text: &str) -> Option<Profile> {
        Some(match text {
            "openai" => Profile::OpenAi,
            "gemini" => Profile::Gemini,
            "anthropic" => Profile::Anthropic,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Profile::OpenAi => "openai",
            Profile::Gemini => "gemini",
            Profile::Anthropic => "anthropic",
        }
    }
}

pub fn check(cx: &mut Context, profile: Profile) {
    let set = cx.set;
    if profile == Profile::OpenAi {
        openai::count(cx);
    }
    for tool in set.tools.iter().filter(|t| t.name.is_some()) {
        match profile {
            Profile::OpenAi => openai::check(cx, tool),
            Profile::Gemini => gemini::check(cx, tool),
            Profile::Anthropic => anthropic::check(cx, tool),
        }
    }
}

/// Whether `name` matches `^[a-zA-Z0-9_-]{1,max}$`, the pattern OpenAI and Anthropic enforce.
fn simple_name(name: &str, max: usize) -> bool {
    (1..=max).contains(&name.chars().count())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
}
