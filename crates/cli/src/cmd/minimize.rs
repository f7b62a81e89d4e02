//! `agentpi minimize`: not written yet.

#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> u8 {
    eprintln!("agentpi minimize: not implemented yet");
    2
}
