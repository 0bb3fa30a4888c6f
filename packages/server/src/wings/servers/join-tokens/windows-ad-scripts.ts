/**
 * The desktop access scripts for Active Directory (spec §7: `install-ad-ds.ps1`,
 * `install-ad-cs.ps1`, `configure-ad.ps1` per join token), served to an admin who runs them in an
 * elevated PowerShell on a domain controller. Postern signs in to RDP with the passwords its
 * resources hold (over TLS, with NLA when the desktop asks for it: docs/desktops.md), so unlike
 * certificate-based designs nothing here touches smart cards or the NTAuth store.
 *
 * They are written from Microsoft's documented cmdlets but cannot be run here (no Windows);
 * docs/desktops.md says so. The only value the server puts in is its own URL, as a PowerShell
 * single-quoted string (nothing inside is expanded); the token only gates who may fetch them.
 */

/** What an invalid, expired or wrong-kind token gets: a script that says so and stops. */
export const invalidTokenPowershell = `Write-Error 'postern: this install link is not valid (or no longer valid): ask your administrator for a new one'
exit 1
`;

/** A PowerShell single-quoted string: `'` doubles, nothing else is special. */
export const powershellQuote = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** Comments and `#Requires`: what may come before a script's `param()` block. */
const header = (what: string) => `#Requires -RunAsAdministrator
# Postern: ${what}
# Served by your Postern proxy for one join token. Review it before you run it.
`;

/** Stop at the first error: a half-configured domain is worse than none. */
const strict = `$ErrorActionPreference = 'Stop'
Set-StrictMode -Version Latest
`;

const preamble = (what: string) => `${header(what)}${strict}`;

/** Makes this Windows Server the first domain controller of a new forest. */
export function installAdDsScript(): string {
  // PowerShell takes `param()` only as a script's first statement.
  return `${header('installs Active Directory Domain Services and creates a new forest.')}
param(
  [Parameter(Mandatory = $true)][string] $DomainName,
  [string] $NetbiosName = ($DomainName.Split('.')[0].ToUpper())
)
${strict}
Write-Host "Installing the AD DS role..."
Install-WindowsFeature -Name AD-Domain-Services -IncludeManagementTools | Out-Null
Import-Module ADDSDeployment

$safeMode = Read-Host -AsSecureString -Prompt 'Directory Services Restore Mode password'
Write-Host "Creating the forest $DomainName (the server restarts when it is done)..."
Install-ADDSForest \`
  -DomainName $DomainName \`
  -DomainNetbiosName $NetbiosName \`
  -SafeModeAdministratorPassword $safeMode \`
  -InstallDns \`
  -Force
`;
}

/**
 * Makes this domain controller an enterprise root CA, so every domain computer enrolls a
 * certificate its Remote Desktop listener can present instead of a self-signed one.
 */
export function installAdCsScript(): string {
  return `${preamble('installs Active Directory Certificate Services as an enterprise root CA.')}
Write-Host "Installing the AD CS role..."
Install-WindowsFeature -Name ADCS-Cert-Authority -IncludeManagementTools | Out-Null
Install-AdcsCertificationAuthority \`
  -CAType EnterpriseRootCA \`
  -HashAlgorithmName SHA256 \`
  -KeyLength 3072 \`
  -ValidityPeriod Years \`
  -ValidityPeriodUnits 10 \`
  -Force | Out-Null

# Domain computers enroll the "Remote Desktop Authentication" certificates automatically once
# the configure-ad.ps1 policy turns autoenrollment on.
$ca = Get-ChildItem Cert:\\LocalMachine\\CA | Where-Object { $_.Subject -eq $_.Issuer } | Select-Object -First 1
if ($ca) {
  Export-Certificate -Cert $ca -FilePath .\\postern-domain-ca.cer -Type CERT | Out-Null
  Write-Host "The domain's root CA certificate is in postern-domain-ca.cer."
}
Write-Host "Done. Restart this server, then run configure-ad.ps1."
`;
}

/**
 * Prepares the domain for Postern: a group of people who may sign in over RDP, a group policy that
 * turns Remote Desktop on (TLS, NLA, the firewall rule, certificate autoenrollment) for every
 * computer of the domain, and a file of `windows_desktop` resources for `postern create -f`.
 */
export function configureAdScript({ baseUrl }: { baseUrl: string }): string {
  return `${preamble('prepares this Active Directory domain for desktop access through Postern.')}
$proxyUrl = ${powershellQuote(baseUrl)}
$groupName = 'Postern Desktop Users'
$gpoName = 'Postern Remote Desktop'
Import-Module ActiveDirectory
Import-Module GroupPolicy
$domain = Get-ADDomain

# Who may sign in over RDP: the people you add to this group (Postern's roles then say which
# logins each person may use: windows_desktop_logins).
if (-not (Get-ADGroup -Filter "Name -eq '$groupName'" -ErrorAction SilentlyContinue)) {
  New-ADGroup -Name $groupName -GroupScope DomainLocal -GroupCategory Security \`
    -Description 'People who may sign in to desktops through Postern'
  Write-Host "Created the group $groupName."
}

# One policy for every computer of the domain: Remote Desktop on, over TLS with Network Level
# Authentication, its firewall rule open, and certificate autoenrollment (install-ad-cs.ps1).
$gpo = Get-GPO -Name $gpoName -ErrorAction SilentlyContinue
if (-not $gpo) { $gpo = New-GPO -Name $gpoName -Comment "Remote Desktop for $proxyUrl" }
$ts = 'HKLM\\Software\\Policies\\Microsoft\\Windows NT\\Terminal Services'
Set-GPRegistryValue -Guid $gpo.Id -Key $ts -ValueName fDenyTSConnections -Type DWord -Value 0 | Out-Null
Set-GPRegistryValue -Guid $gpo.Id -Key $ts -ValueName SecurityLayer -Type DWord -Value 2 | Out-Null
Set-GPRegistryValue -Guid $gpo.Id -Key $ts -ValueName UserAuthentication -Type DWord -Value 1 | Out-Null
$fw = 'HKLM\\Software\\Policies\\Microsoft\\WindowsFirewall\\FirewallRules'
Set-GPRegistryValue -Guid $gpo.Id -Key $fw -ValueName 'Postern-RDP-TCP-In' -Type String \`
  -Value 'v2.30|Action=Allow|Active=TRUE|Dir=In|Protocol=6|LPort=3389|Name=Postern Remote Desktop (TCP-In)|' | Out-Null
$ae = 'HKLM\\Software\\Policies\\Microsoft\\Cryptography\\AutoEnrollment'
Set-GPRegistryValue -Guid $gpo.Id -Key $ae -ValueName AEPolicy -Type DWord -Value 7 | Out-Null
if (-not (Get-GPInheritance -Target $domain.DistinguishedName).GpoLinks.DisplayName.Contains($gpoName)) {
  New-GPLink -Guid $gpo.Id -Target $domain.DistinguishedName | Out-Null
}
Write-Host "The policy $gpoName applies to the domain's computers at their next policy refresh."

# The group may use Remote Desktop on every computer (through the builtin group, by policy).
$sid = (Get-ADGroup $groupName).SID.Value
$restricted = "[Group Membership]\`r\`n*S-1-5-32-555__Members = *$sid\`r\`n"
$sysvol = "\\\\$($domain.DNSRoot)\\SYSVOL\\$($domain.DNSRoot)\\Policies\\{$($gpo.Id)}\\Machine\\Microsoft\\Windows NT\\SecEdit"
New-Item -ItemType Directory -Force -Path $sysvol | Out-Null
Set-Content -Path "$sysvol\\GptTmpl.inf" -Encoding Unicode \`
  -Value "[Unicode]\`r\`nUnicode=yes\`r\`n[Version]\`r\`nsignature=\`"\`$CHICAGO\`$\`"\`r\`nRevision=1\`r\`n$restricted"

# The domain's Windows computers as Postern resources. Postern keeps the passwords of the logins
# it signs in with (rdp_passwords): add them to the file before creating the resources.
$lines = @()
foreach ($computer in Get-ADComputer -Filter "OperatingSystem -like '*Windows*'" -Properties DNSHostName, OperatingSystem) {
  if (-not $computer.DNSHostName) { continue }
  # Postern's desktop names are DNS labels.
  $name = ($computer.Name.ToLower() -replace '[^a-z0-9-]', '-').Trim('-')
  if (-not $name) { continue }
  $lines += '---'
  $lines += 'kind: windows_desktop'
  $lines += 'version: v3'
  $lines += 'metadata:'
  $lines += "  name: $name"
  $lines += "  labels: {ad: 'true', domain: '$($domain.DNSRoot)'}"
  $lines += 'spec:'
  $lines += "  addr: '$($computer.DNSHostName):3389'"
  $lines += '  protocol: rdp'
  $lines += "  os: '$($computer.OperatingSystem -replace "'", "''")'"
}
Set-Content -Path .\\postern-desktops.yaml -Value $lines -Encoding UTF8
Write-Host "Wrote $((($lines | Where-Object { $_ -eq '---' }).Count)) desktops to postern-desktops.yaml."
Write-Host "Next: add rdp_passwords for the logins Postern signs in with, then on the Postern host:"
Write-Host "  postern create -f postern-desktops.yaml"
Write-Host "and give roles windows_desktop_logins. Desktops appear at $proxyUrl/web (Desktops)."
`;
}
