// `courier`: Courier's main command. `swift run courier demo` runs the scripted story on the
// embedded fake backend; `courier demo --help` explains the options.
import CourierDemo
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.first == "demo" else {
  let text = "usage: courier demo [--seed N] [--faults] [--json] [--server URL] [--help]\n"
  FileHandle.standardError.write(Data(text.utf8))
  exit(arguments.first == "--help" || arguments.first == "-h" ? 0 : 2)
}
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
let code = await DemoStory(options: options, write: { print($0) }).run()
exit(code)
