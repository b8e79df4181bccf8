import Foundation
import Seams

/// One step of a simulation of several devices: something a device's user does, a device's
/// network or life changing, or the backend losing an answer.
///
/// Devices are numbered: 0 and 1 are two devices of the self user, 2 is Ann's. Every value a
/// step writes is new, so a value the backend applies twice was sent twice.
public enum DeviceStep: Sendable, Hashable, CustomStringConvertible {
  /// The device's user renames themselves.
  case renameSelf(device: Int, name: String)
  /// The device's user renames the group.
  case renameGroup(device: Int, name: String)
  /// The device's user adds Bob to the group, or removes him if he is in it.
  case toggleBob(device: Int)
  /// The device's user writes in the group.
  case write(device: Int, text: String)
  /// The device's network goes down, and its app is told so.
  case goOffline(device: Int)
  /// The device's network comes back, and its app is told so.
  case goOnline(device: Int)
  /// The device fetches its notifications, as a push would make it.
  case pull(device: Int)
  /// The device's app is killed and started again on its store.
  case restart(device: Int)
  /// The backend applies the next change any device sends, and its answer is lost.
  case loseNextAnswer
  /// Time passes: retries and backoff run out.
  case wait

  /// The step as the schedule prints it.
  public var description: String {
    switch self {
    case .renameSelf(let device, let name): "device \(device) renames its user to \(name)"
    case .renameGroup(let device, let name): "device \(device) renames the group to \(name)"
    case .toggleBob(let device): "device \(device) adds or removes Bob"
    case .write(let device, let text): "device \(device) writes \(text)"
    case .goOffline(let device): "device \(device) goes offline"
    case .goOnline(let device): "device \(device) comes online"
    case .pull(let device): "device \(device) pulls"
    case .restart(let device): "device \(device) restarts"
    case .loseNextAnswer: "the next change's answer is lost"
    case .wait: "time passes"
    }
  }

  /// A schedule of `count` steps drawn from `seed`.
  public static func schedule(seed: UInt64, count: Int) -> [DeviceStep] {
    var random = SeededRandomNumberGenerator(seed: seed ^ 0xD3_71CE)
    return (0..<count).map { index in
      let device = Int.random(in: 0..<3, using: &random)
      switch Int.random(in: 0..<100, using: &random) {
      case 0..<16: return .renameSelf(device: device, name: "name \(index)")
      case 16..<34: return .renameGroup(device: device, name: "group \(index)")
      case 34..<46: return .toggleBob(device: device)
      case 46..<60: return .write(device: device, text: "text \(index)")
      case 60..<67: return .goOffline(device: device)
      case 67..<76: return .goOnline(device: device)
      case 76..<86: return .pull(device: device)
      case 86..<90: return .restart(device: device)
      case 90..<95: return .loseNextAnswer
      default: return .wait
      }
    }
  }
}
