import ActiondDevelopment

// The actiond binary: the operating commands and the development tools (demo, bench, db),
// with the built-in handlers.
await ActiondDevelopment.main()
