import FakeBackend
import Foundation

/// The backend the demo story expects: the self user Ada, and Ann Lee, Anna Bell and Bob Stone
/// to find by searching.
public enum DemoScenario {
  /// Puts the scenario's users into `fake`; returns the ids of Ada and of Ann, whom the story
  /// connects with.
  @discardableResult
  public static func populate(_ fake: FakeBackend) -> (me: UUID, ann: UUID) {
    let me = fake.insertSelfUser(name: "Ada", handle: "ada")
    let ann = fake.insertUser(name: "Ann Lee", handle: "ann")
    fake.insertUser(name: "Anna Bell", handle: "annabell")
    fake.insertUser(name: "Bob Stone", handle: "bob")
    return (me, ann)
  }
}
