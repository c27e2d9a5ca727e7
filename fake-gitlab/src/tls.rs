//! HTTPS for the fake, as a self-managed GitLab behind its own CA serves
//! it (docs: https://docs.gitlab.com/omnibus/settings/ssl/): a CA made at
//! start-up signs a leaf certificate for `127.0.0.1` and `localhost`; the
//! test gets the CA's PEM to trust. rustls on ring, no C build.

use std::sync::Arc;

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};
use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};

pub type Acceptor = tokio_rustls::TlsAcceptor;

/// A fresh CA and server certificate: the acceptor, and the CA in PEM.
pub fn make() -> (Acceptor, String) {
    let ca_key = KeyPair::generate().expect("CA key");
    let mut ca = CertificateParams::new(Vec::<String>::new()).expect("CA parameters");
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(DnType::CommonName, "fake-gitlab test CA");
    ca.distinguished_name
        .push(DnType::OrganizationName, "fake-gitlab");
    ca.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let ca_cert = ca.self_signed(&ca_key).expect("CA certificate");
    let ca_pem = ca_cert.pem();
    let issuer = Issuer::new(ca, ca_key);

    let leaf_key = KeyPair::generate().expect("server key");
    let mut leaf = CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".to_string()])
        .expect("server parameters");
    leaf.distinguished_name
        .push(DnType::CommonName, "fake-gitlab");
    leaf.is_ca = IsCa::ExplicitNoCa;
    leaf.key_usages = vec![
        KeyUsagePurpose::DigitalSignature,
        KeyUsagePurpose::KeyEncipherment,
    ];
    leaf.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let leaf_cert = leaf
        .signed_by(&leaf_key, &issuer)
        .expect("server certificate");

    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der()));
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .expect("TLS versions")
    .with_no_client_auth()
    .with_single_cert(vec![leaf_cert.der().clone()], key)
    .expect("server certificate and key");
    let mut config = config;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    (tokio_rustls::TlsAcceptor::from(Arc::new(config)), ca_pem)
}
