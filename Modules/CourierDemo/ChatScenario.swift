import FakeBackend
import Foundation

/// The backend two or three chat clients share: Ann, Bob and Cleo, who sign in by their handles
/// (`ann`, `bob`, `cleo`) and are connected with each other, each pair with its one-to-one
/// conversation.
public enum ChatScenario {
  /// The handles of the scenario's users, in the order they are made.
  public static let handles = ["ann", "bob", "cleo"]

  /// Puts the scenario's users and their connections into `fake`, and returns their ids.
  ///
  /// The ids are keyed by handle. Ann is also the self user.
  @discardableResult
  public static func populate(_ fake: FakeBackend) -> [String: UUID] {
    let ann = fake.insertSelfUser(name: "Ann", handle: "ann")
    let bob = fake.insertUser(name: "Bob", handle: "bob")
    let cleo = fake.insertUser(name: "Cleo", handle: "cleo")
    for (user, other) in [(ann, bob), (ann, cleo), (bob, cleo)] { fake.connect(user, with: other) }
    return ["ann": ann, "bob": bob, "cleo": cleo]
  }
}
