import Foundation
import PackagePlugin

/// Embeds `Schema/{roles,migrations,functions,views,grants,citus,citus/functions}/*.sql` and `categories/default.json` into the target as
/// Swift string literals, so the `actiond` binary carries its migrations and default
/// categories and needs no files beside it at run time. (SwiftPM resources must live inside
/// the target's folder; the contract keeps `Schema/` at the top level for DBAs to read.)
@main
struct EmbedResources: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        if let source = target as? SourceModuleTarget, target.name == "ActiondConsole" {
            return try consoleAssets(context: context, folder: source.directoryURL.appending(path: "Assets"))
        }
        let root = context.package.directoryURL
        let schema = root.appending(path: "Schema")
        // The roles, the numbered table migrations, then one file per function and view, then
        // the grants. (No triggers since 004_distributable_keys.sql: Citus refuses them.) Then
        // what `actiond migrate --citus` runs after all of them.
        var sqlFiles: [URL] = []
        for folder in ["roles", "migrations", "functions", "views", "grants", "citus", "citus/functions"] {
            sqlFiles += try FileManager.default.contentsOfDirectory(at: schema.appending(path: folder), includingPropertiesForKeys: nil)
                .filter { $0.pathExtension == "sql" }
                .sorted { $0.lastPathComponent < $1.lastPathComponent }
        }
        let categories = root.appending(path: "categories").appending(path: "default.json")
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedResources.swift")
        let inputs = sqlFiles + [categories]
        return [
            .buildCommand(
                displayName: "Embedding Schema/ and categories/default.json",
                executable: try context.tool(named: "EmbedResourcesTool").url,
                arguments: [output.path(percentEncoded: false)] + inputs.map { $0.path(percentEncoded: false) },
                inputFiles: inputs,
                outputFiles: [output]
            ),
        ]
    }

    /// The console's templates, style sheet and script (`Sources/ActiondConsole/Assets`), as
    /// `ConsoleAssets.files`: the binary serves them with nothing beside it.
    private func consoleAssets(context: PluginContext, folder: URL) throws -> [Command] {
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "ConsoleAssets.swift")
        return [
            .buildCommand(
                displayName: "Embedding the console's assets",
                executable: try context.tool(named: "EmbedResourcesTool").url,
                arguments: [output.path(percentEncoded: false), "--assets"] + files.map { $0.path(percentEncoded: false) },
                inputFiles: files,
                outputFiles: [output]
            ),
        ]
    }
}
