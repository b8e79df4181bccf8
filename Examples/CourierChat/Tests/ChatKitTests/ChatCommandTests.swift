import ChatKit
import Testing

@Suite("ChatCommand")
struct ChatCommandTests {
  @Test(
    "It reads each command, and any other line as a message",
    arguments: [
      ("hello there", ChatCommand.say("hello there")),
      ("  /list ", .list),
      ("/open 2", .open("2")),
      ("/open Tea time", .open("Tea time")),
      ("/group Tea bob cleo", .group(name: "Tea", handles: ["bob", "cleo"])),
      ("/rename Coffee", .rename("Coffee")),
      ("/add cleo", .add(handle: "cleo")),
      ("/offline", .offline),
      ("/online", .online),
      ("/queue", .queue),
      ("/show", .show),
      ("/quit", .quit),
    ])
  func reads(_ line: String, _ command: ChatCommand) throws {
    // when, then
    #expect(try ChatCommand(parsing: line) == command)
  }

  @Test(
    "It refuses a line it cannot read, saying what to type",
    arguments: [
      ("", ChatCommandError.empty),
      ("/dance", .unknown("dance")),
      ("/group Tea", .needs("group", "a name and at least one handle")),
      ("/add bob cleo", .needs("add", "one handle")),
      ("/list all", .needs("list", "nothing after it")),
    ])
  func refuses(_ line: String, _ error: ChatCommandError) {
    // when, then
    #expect(throws: error) { try ChatCommand(parsing: line) }
  }
}
