//! The fake over HTTPS: trusted with its CA, refused without.

#![cfg(feature = "tls")]

use fake_gitlab::FakeGitLab;

#[tokio::test]
async fn the_ca_bundle_makes_the_certificate_trusted_and_its_absence_fails() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let (fake, ca_pem) = FakeGitLab::start_tls().await;
    assert!(fake.url().starts_with("https://127.0.0.1:"));
    assert!(ca_pem.starts_with("-----BEGIN CERTIFICATE-----"));

    let ca = reqwest::Certificate::from_pem(ca_pem.as_bytes()).unwrap();
    let trusting = reqwest::Client::builder()
        .tls_certs_only([ca.clone()])
        .build()
        .unwrap();
    let r = trusting
        .get(format!("{}/api/v4/user", fake.url()))
        .header("PRIVATE-TOKEN", "glpat-alice")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let port = fake.addr().port();
    let by_name = trusting
        .get(format!("https://localhost:{port}/api/v4/version"))
        .send()
        .await
        .unwrap();
    assert_eq!(by_name.status(), 200);
    assert_eq!(fake.requests().len(), 2);

    let plain = reqwest::Client::builder().build().unwrap();
    let err = plain
        .get(format!("{}/api/v4/user", fake.url()))
        .send()
        .await
        .unwrap_err();
    assert!(err.is_connect(), "{err:?}");
    // Another fake's CA does not do either.
    let (_, other_ca) = FakeGitLab::start_tls().await;
    let wrong = reqwest::Client::builder()
        .tls_certs_only([reqwest::Certificate::from_pem(other_ca.as_bytes()).unwrap()])
        .build()
        .unwrap();
    assert!(
        wrong
            .get(format!("{}/api/v4/user", fake.url()))
            .send()
            .await
            .is_err()
    );
    // The refused handshakes reached no handler.
    assert_eq!(fake.requests().len(), 2);
}
