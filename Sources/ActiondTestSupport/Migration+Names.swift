import ActiondPostgres

extension Migration {
    /// The names of this build's table migrations from `first` on, in order: what a migrate of
    /// a database that has every migration before `first` applies.
    package static func names(from first: String) -> [String] {
        all.map(\.name).filter { $0 >= first }
    }
}
