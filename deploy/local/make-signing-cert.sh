#!/usr/bin/env bash
# A development C2PA signing chain (docs/provenance.md): a root CA and an end-entity ES256 signer
# certificate as c2pa's certificate profile wants it (not a CA, digitalSignature, emailProtection).
# usage: make-signing-cert.sh DIR [NAME] -> DIR/{ca.pem,ca.key,signer.pem,signer.key,chain.pem}
# Never for production: there the chain comes from a CA on the C2PA trust list.
set -euo pipefail
dir="$1"; name="${2:-Studio}"
mkdir -p "$dir"; cd "$dir"
openssl ecparam -name prime256v1 -genkey -noout -out ca.key 2>/dev/null
openssl req -x509 -new -key ca.key -sha256 -days 3650 -subj "/CN=$name development root CA/O=$name" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" -out ca.pem 2>/dev/null
openssl ecparam -name prime256v1 -genkey -noout -out signer.ec.key 2>/dev/null
openssl pkcs8 -topk8 -nocrypt -in signer.ec.key -out signer.key
openssl req -new -key signer.key -subj "/CN=$name content signing (development)/O=$name" -out signer.csr 2>/dev/null
printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=emailProtection\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n' > ext.cnf
openssl x509 -req -in signer.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 825 -sha256 -extfile ext.cnf -out signer.pem 2>/dev/null
cat signer.pem ca.pem > chain.pem
rm -f signer.csr ext.cnf signer.ec.key ca.srl
