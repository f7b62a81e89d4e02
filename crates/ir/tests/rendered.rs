//! Snapshots of rendered diagnostics: position, snippet, label and help, as users see them.

use agentpi_diagnostics::render;

/// Loads `text` as `m.pi` and renders every diagnostic.
fn rendered(text: &str) -> String {
    let loaded = agentpi_ir::load_str("m.pi", text);
    render::terminal_all(&loaded.diagnostics, &loaded.sources)
}

#[test]
fn unknown_channel_with_suggestion() {
    insta::assert_snapshot!(rendered("chan request : 0..3\nsystem S = reqest!1\n"));
}

#[test]
fn duplicate_definition_points_at_both() {
    insta::assert_snapshot!(rendered("chan c\nevent c\nsystem S = c!\n"));
}

#[test]
fn non_exhaustive_match_names_missing_cases() {
    insta::assert_snapshot!(rendered(
        "type Failure = timeout | tool_error | refused\ntype Outcome = ok(0..3) | err(Failure)\n\
         chan c : Outcome\nsystem S = c?r . match r {\n  ok(_) => 0,\n  err(timeout) => 0\n}\n"
    ));
}

#[test]
fn channel_arity_and_untyped_new() {
    insta::assert_snapshot!(rendered(
        "chan req : (Bool, 0..3)\nsystem S = req!true . new r . 0\n"
    ));
}

#[test]
fn syntax_error_and_type_error_together() {
    insta::assert_snapshot!(rendered(
        "chan c : Bool\nproc P = c!1\nproc Q = c?x . . 0\nsystem S = P | Q\n"
    ));
}
