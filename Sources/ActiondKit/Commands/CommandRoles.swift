import ActiondRuntime
import ArgumentParser

/// A command whose login needs one of actiond's roles (`CommandAccess`, the one table of
/// them): PostgreSQL's refusal of a privilege (42501) is printed by `runCommandLine` as the
/// sentence naming the role the command needs (`RoleRefusal`), never bare.
package protocol RoleBoundCommand: ParsableCommand {
    static var access: CommandAccess { get }
}

extension MigrateCommand: RoleBoundCommand { static var access: CommandAccess { .migrate } }
extension CategoriesCommand.Load: RoleBoundCommand { static var access: CommandAccess { .categoriesLoad } }
extension CategoriesCommand.List: RoleBoundCommand { static var access: CommandAccess { .categoriesList } }
extension SubmitCommand: RoleBoundCommand { static var access: CommandAccess { .submit } }
extension WorkCommand: RoleBoundCommand { static var access: CommandAccess { .work } }
extension ReportCommand: RoleBoundCommand { static var access: CommandAccess { .report } }
extension RebuildCommand: RoleBoundCommand { static var access: CommandAccess { .rebuild } }
extension DeadLettersCommand.Retry: RoleBoundCommand { static var access: CommandAccess { .deadLettersRetry } }
extension DeadLettersCommand.Discard: RoleBoundCommand { static var access: CommandAccess { .deadLettersDiscard } }
extension PauseCommand: RoleBoundCommand { static var access: CommandAccess { .pause } }
extension ResumeCommand: RoleBoundCommand { static var access: CommandAccess { .resume } }
extension PruneCommand: RoleBoundCommand { static var access: CommandAccess { .prune } }
extension ForgetCommand: RoleBoundCommand { static var access: CommandAccess { .forget } }
extension KeysCommand.Rotate: RoleBoundCommand { static var access: CommandAccess { .keysRotate } }
extension KeysCommand.Reseal: RoleBoundCommand { static var access: CommandAccess { .keysReseal } }
