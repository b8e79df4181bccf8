// `courier`: Courier's main command. `swift run courier demo` runs the scripted story on the
// embedded fake backend; `courier serve` runs the fake backend as an HTTP server;
// `courier demo --help` and `courier serve --help` explain the options.
import CourierDemo
import Dispatch
import Foundation

let command: CourierCommand
do {
  command = try CourierCommand(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
  let usage: String
  switch error {
  case .missingCommand, .unknownCommand: usage = CourierCommand.usage + "\n"
  case .invalidOptions: usage = ""
  }
  FileHandle.standardError.write(Data("\(error)\n\(usage)".utf8))
  exit(2)
}
switch command {
case .help:
  print(CourierCommand.usage)
  exit(0)
case .demo(let options):
  if options.help {
    print(DemoOptions.usage)
    exit(0)
  }
  exit(await DemoStory(options: options, write: { print($0) }).run())
case .serve(let options):
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
}
