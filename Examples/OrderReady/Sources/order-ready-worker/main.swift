import ActiondKit
import OrderReady

// A team's own actiond: every operating command (migrate, categories, submit, work, report,
// rebuild, dead-letters, pause, resume, prune, forget, keys), with ORDER_READY beside the
// built-in handlers; none of the development tools (ActiondDevelopment.main adds demo, bench, db).
await Actiond.main(handlers: [OrderReadyHandler()])
