import Foundation

if CommandLine.arguments.count > 1 && CommandLine.arguments[1] == "backup-memory" {
    exit(BackupMemoryBenchmark.run(Array(CommandLine.arguments.dropFirst(2))))
}
print("todo")
