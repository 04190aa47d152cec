import CSQLite

// The floor of workload 6 (keychain-bench): a Swift program without Foundation that opens a
// database, reads its header (PRAGMA user_version) and exits. Usage: keychain-floor-open PATH
let arguments = CommandLine.arguments
guard arguments.count == 2 else { fatalError("usage: keychain-floor-open PATH") }
var handle: OpaquePointer?
guard sqlite3_open_v2(arguments[1], &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let handle else {
    fatalError("cannot open \(arguments[1])")
}
var statement: OpaquePointer?
guard sqlite3_prepare_v2(handle, "PRAGMA user_version", -1, &statement, nil) == SQLITE_OK,
    sqlite3_step(statement) == SQLITE_ROW
else { fatalError("cannot read \(arguments[1])") }
sqlite3_finalize(statement)
sqlite3_close_v2(handle)
