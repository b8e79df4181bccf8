import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension HTTPRequest {
  /// The absolute URL of this request below `baseURL`, whose own path is kept as a prefix.
  public func url(relativeTo baseURL: URL) throws(HTTPRequestError) -> URL {
    var base = baseURL.absoluteString
    while base.hasSuffix("/") { base.removeLast() }
    guard baseURL.query == nil, baseURL.fragment == nil,
      let url = URL(string: base + encodedPathAndQuery), url.host != nil
    else {
      throw .invalidBaseURL(baseURL.absoluteString)
    }
    return url
  }

  /// A Foundation request for this one below `baseURL`, with its headers and body set.
  ///
  /// A JSON body sets `Content-Type: application/json`; without it URLSession on Linux would send
  /// a form content type.
  public func urlRequest(relativeTo baseURL: URL) throws(HTTPRequestError) -> URLRequest {
    var request = URLRequest(url: try url(relativeTo: baseURL))
    request.httpMethod = method.rawValue
    for header in headers {
      request.addValue(header.value, forHTTPHeaderField: header.name)
    }
    if let body {
      request.setValue(body.contentType, forHTTPHeaderField: "Content-Type")
      request.httpBody = body.data
    }
    return request
  }
}
