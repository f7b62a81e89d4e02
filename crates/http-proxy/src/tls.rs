//! HTTPS for a listening proxy: a certificate chain and its private key, read from PEM files,
//! served with rustls (ring, HTTP/1.1 by ALPN).

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::io;
use std::path::Path;
use std::sync::Arc;
use tokio_rustls::TlsAcceptor;

/// What a proxy serving HTTPS accepts connections with.
#[derive(Clone)]
pub struct Tls(pub(crate) TlsAcceptor);

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tls")
    }
}

impl Tls {
    /// The certificate chain in `cert` and the private key in `key` (PEM: PKCS#8, PKCS#1 or
    /// SEC1); an error naming the file and what is wrong with it.
    pub fn from_pem_files(cert: &Path, key: &Path) -> io::Result<Tls> {
        let bad = |path: &Path, why: String| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{}: {why}", path.display()),
            )
        };
        let chain = CertificateDer::pem_file_iter(cert)
            .and_then(Iterator::collect::<Result<Vec<_>, _>>)
            .map_err(|e| bad(cert, format!("no certificate read: {e}")))?;
        if chain.is_empty() {
            return Err(bad(cert, "no certificate in the file".into()));
        }
        let key_der = PrivateKeyDer::from_pem_file(key)
            .map_err(|e| bad(key, format!("no private key read: {e}")))?;
        Tls::new(chain, key_der).map_err(|e| bad(key, e.to_string()))
    }

    /// From a chain and key already in DER.
    pub fn new(
        chain: Vec<CertificateDer<'static>>,
        key: PrivateKeyDer<'static>,
    ) -> Result<Tls, rustls::Error> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()?
            .with_no_client_auth()
            .with_single_cert(chain, key)?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Tls(TlsAcceptor::from(Arc::new(config))))
    }
}
