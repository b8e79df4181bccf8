/// Reads a command's arguments one by one, and the value after an option, refusing with the
/// option's name and what it needs.
struct ArgumentReader {
  private var iterator: IndexingIterator<[String]>

  init(_ arguments: [String]) {
    iterator = arguments.makeIterator()
  }

  /// The next argument, if any.
  mutating func next() -> String? {
    iterator.next()
  }

  /// The value after `option`, read by `parse`.
  ///
  /// - Throws: ``DemoOptionsError/invalidValue(_:_:)`` saying what `option` needs when the
  ///   value is missing or `parse` refuses it.
  mutating func value<Value>(
    of option: String, needs expected: String, _ parse: (String) -> Value?
  ) throws(DemoOptionsError) -> Value {
    guard let text = iterator.next(), let value = parse(text) else {
      throw .invalidValue(option, expected)
    }
    return value
  }
}
