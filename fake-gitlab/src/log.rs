//! The log of raw requests the fake received, for tests to assert on:
//! exactly what went over the wire, before any decoding.

/// One request as received.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    pub method: String,
    /// The path exactly as sent, still percent-encoded (`/api/v4/projects/a%2Fb`).
    pub raw_path: String,
    /// The query string exactly as sent, without `?`; empty when absent.
    pub raw_query: String,
    pub body: String,
    /// The `PRIVATE-TOKEN` header, if any.
    pub private_token: Option<String>,
    /// The `Authorization` header, if any.
    pub authorization: Option<String>,
}

impl RecordedRequest {
    /// `GET /api/v4/projects?x=1`, the way tests compare requests.
    pub fn line(&self) -> String {
        if self.raw_query.is_empty() {
            format!("{} {}", self.method, self.raw_path)
        } else {
            format!("{} {}?{}", self.method, self.raw_path, self.raw_query)
        }
    }

    /// The body as JSON (`Null` when empty or not JSON).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or(serde_json::Value::Null)
    }

    /// Decoded query pairs, in order.
    pub fn query_pairs(&self) -> Vec<(String, String)> {
        crate::http::parse_query(&self.raw_query)
    }
}
