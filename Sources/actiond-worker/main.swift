import ActiondKit

// The production actiond: every operating command (migrate, categories, submit, work, report,
// rebuild, dead-letters, pause, resume, prune, forget, keys) with the built-in handlers, and
// none of the development tools (demo, bench, db): what the Dockerfile ships, as `actiond`.
await Actiond.main()
