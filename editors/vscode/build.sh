#!/usr/bin/env bash
# Packages the extension as a .vsix without vsce: its runtime dependency installed from the
# lockfile, the JavaScript checked by node, then the zip VS Code installs (the package under
# extension/, extension.vsixmanifest, [Content_Types].xml). Usage: build.sh [OUT_DIR]
# (default target/vscode); `code --install-extension OUT_DIR/toolgate-VERSION.vsix`.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/../../target/vscode}"
rm -rf "$out"
mkdir -p "$out/stage/extension"
cp "$here/package.json" "$here/package-lock.json" "$here/extension.js" "$out/stage/extension/"
(cd "$out/stage/extension" && npm ci --omit=dev --no-audit --no-fund --loglevel=error)
node --check "$out/stage/extension/extension.js"
python3 - "$out" <<'PY'
import json, pathlib, sys, zipfile
out = pathlib.Path(sys.argv[1])
stage = out / "stage"
pkg = json.loads((stage / "extension" / "package.json").read_text())
manifest = f"""<?xml version="1.0" encoding="utf-8"?>
<PackageManifest Version="2.0.0" xmlns="http://schemas.microsoft.com/developer/vsx-schema/2011">
  <Metadata>
    <Identity Language="en-US" Id="{pkg['name']}" Version="{pkg['version']}" Publisher="{pkg['publisher']}"/>
    <DisplayName>{pkg['displayName']}</DisplayName>
    <Description xml:space="preserve">{pkg['description']}</Description>
    <Categories>{','.join(pkg['categories'])}</Categories>
    <Properties>
      <Property Id="Microsoft.VisualStudio.Code.Engine" Value="{pkg['engines']['vscode']}"/>
    </Properties>
  </Metadata>
  <Installation><InstallationTarget Id="Microsoft.VisualStudio.Code"/></Installation>
  <Dependencies/>
  <Assets>
    <Asset Type="Microsoft.VisualStudio.Code.Manifest" Path="extension/package.json" Addressable="true"/>
  </Assets>
</PackageManifest>
"""
types = """<?xml version="1.0" encoding="utf-8"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
  <Default Extension=".json" ContentType="application/json"/>
  <Default Extension=".js" ContentType="application/javascript"/>
  <Default Extension=".md" ContentType="text/markdown"/>
  <Default Extension=".txt" ContentType="text/plain"/>
  <Default Extension=".vsixmanifest" ContentType="text/xml"/>
  <Default Extension=".ts" ContentType="text/plain"/>
  <Default Extension=".map" ContentType="application/json"/>
</Types>
"""
vsix = out / f"{pkg['name']}-{pkg['version']}.vsix"
with zipfile.ZipFile(vsix, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("extension.vsixmanifest", manifest)
    z.writestr("[Content_Types].xml", types)
    for f in sorted((stage / "extension").rglob("*")):
        if f.is_file():
            z.write(f, f.relative_to(stage).as_posix())
with zipfile.ZipFile(vsix) as z:
    names = z.namelist()
    assert "extension/package.json" in names and "extension/extension.js" in names
    assert any(n.startswith("extension/node_modules/vscode-languageclient/") for n in names)
print(f"{vsix}: {len(names)} files")
PY
