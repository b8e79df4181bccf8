/// A first-in, first-out queue whose appends and removals from the front cost O(1), unlike
/// `Array.removeFirst()`.
struct RingBuffer<Element> {
  private var slots: [Element?] = []
  private var head = 0
  /// How many elements the queue holds.
  private(set) var count = 0

  /// Whether the queue is empty.
  var isEmpty: Bool { count == 0 }

  /// Adds `element` at the back, growing the storage when it is full.
  mutating func append(_ element: Element) {
    if count == slots.count { grow() }
    slots[(head + count) % slots.count] = element
    count += 1
  }

  /// Removes and returns the element at the front, or `nil` when empty.
  mutating func popFirst() -> Element? {
    guard count > 0 else { return nil }
    let element = slots[head]
    slots[head] = nil
    head = (head + 1) % slots.count
    count -= 1
    return element
  }

  private mutating func grow() {
    var grown = [Element?](repeating: nil, count: max(8, slots.count * 2))
    for offset in 0..<count { grown[offset] = slots[(head + offset) % slots.count] }
    slots = grown
    head = 0
  }
}

extension RingBuffer: Sendable where Element: Sendable {}
