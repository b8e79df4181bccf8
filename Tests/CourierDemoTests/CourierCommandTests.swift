import CourierDemo
import TestSupport
import Testing

@Suite("CourierCommand", .tags(.tools), .timeBudget(.seconds(5)))
struct CourierCommandTests {
  @Test(
    "It reads each command with its own options",
    arguments: zip(
      [["demo", "--seed", "3"], ["serve", "--port", "8080"], ["--help"], ["-h"], ["help"]],
      [
        CourierCommand.demo(Self.demo(seed: 3)), .serve(Self.serve(port: 8080)), .help, .help,
        .help,
      ]))
  func reads(_ arguments: [String], _ expected: CourierCommand) throws {
    // when
    let command = try CourierCommand(arguments: arguments)

    // then
    #expect(command == expected)
  }

  @Test(
    "It refuses what it cannot read, pointing at the help of the command in question",
    arguments: zip(
      [[], ["deploy"], ["demo", "--colour"], ["serve", "--colour"], ["serve", "--port"]],
      [
        "courier: no command given (see courier --help)",
        "courier: unknown command 'deploy' (see courier --help)",
        "courier demo: unknown argument '--colour' (see courier demo --help)",
        "courier serve: unknown argument '--colour' (see courier serve --help)",
        "courier serve: --port needs a port number from 0 to 65535 (see courier serve --help)",
      ]))
  func refuses(_ arguments: [String], _ message: String) {
    // when
    let error = #expect(throws: CourierCommandError.self) {
      try CourierCommand(arguments: arguments)
    }

    // then
    #expect(error?.description == message)
  }

  @Test("Its usage names every command")
  func usageNamesEveryCommand() {
    // when
    let lines = CourierCommand.usage.split(separator: "\n")

    // then
    #expect(lines.count == 2)
    #expect(lines.allSatisfy { $0.contains("courier demo") || $0.contains("courier serve") })
  }

  static func demo(seed: UInt64) -> DemoOptions {
    var options = DemoOptions()
    options.seed = seed
    return options
  }

  static func serve(port: UInt16) -> ServeOptions {
    var options = ServeOptions()
    options.port = port
    return options
  }
}
