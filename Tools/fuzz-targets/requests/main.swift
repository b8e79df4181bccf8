// libFuzzer entry for the `requests` property (see FuzzProperties); built and run by Tools/fuzz.
import FuzzProperties

/// Checks one input libFuzzer made; a failed property ends the process.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  if let failure = FuzzProperty.requests.check(bytes) {
    // libFuzzer learns of a broken property from a crash, and keeps the input that caused it.
    fatalError("property requests failed: \(failure)")
  }
  return 0
}
