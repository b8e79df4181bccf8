// The libFuzzer entry every target shares; Tools/fuzz compiles it with a generated file that
// names the target's property as `fuzzedProperty`.
import FuzzProperties

/// Checks one input libFuzzer made; a failed property ends the process.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  if let failure = fuzzedProperty.check(bytes) {
    // libFuzzer learns of a broken property from a crash, and keeps the input that caused it.
    fatalError("property \(fuzzedProperty.name) failed: \(failure)")
  }
  return 0
}
