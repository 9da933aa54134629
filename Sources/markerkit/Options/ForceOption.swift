import ArgumentParser

/// `--force`: output files that exist are replaced only with it (the rule of every command).
struct ForceOption: ParsableArguments {
    @Flag(help: "Replace output files that exist.") var force = false
}
