// `courier`: Courier's main command. `swift run courier demo` runs the scripted story on the
// embedded fake backend; `courier serve` runs the fake backend as an HTTP server;
// `courier demo --help` and `courier serve --help` explain the options.
import CourierDemo
import Dispatch
import Foundation

let usage = """
  usage: courier demo [--seed N] [--faults] [--json] [--server URL] [--store FILE] [--help]
         courier serve [--port N] [--seed N] [--scenario empty|demo] [--help]

  """
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "demo":
  let options: DemoOptions
  do {
    options = try DemoOptions(arguments: Array(arguments.dropFirst()))
  } catch {
    FileHandle.standardError.write(Data("courier demo: \(error)\n".utf8))
    exit(2)
  }
  if options.help {
    print(DemoOptions.usage)
    exit(0)
  }
  exit(await DemoStory(options: options, write: { print($0) }).run())
case "serve":
  let options: ServeOptions
  do {
    options = try ServeOptions(arguments: Array(arguments.dropFirst()))
  } catch {
    FileHandle.standardError.write(Data("courier serve: \(error)\n".utf8))
    exit(2)
  }
  if options.help {
    print(ServeOptions.usage)
    exit(0)
  }
  // Unbuffered, so a script reading the base URL sees it at once.
  let write: @Sendable (String) -> Void = {
    FileHandle.standardOutput.write(Data(($0 + "\n").utf8))
  }
  let code = await FakeServerCommand(options: options, write: write).run {
    await TerminationSignal.wait()
  }
  exit(code)
default:
  FileHandle.standardError.write(Data(usage.utf8))
  exit(arguments.first == "--help" || arguments.first == "-h" ? 0 : 2)
}
