/** The 'Resources' list on Help & Support: references for what Postern builds on. */
export interface SupportLink {
  title: string;
  href: string;
}

export const supportLinks: readonly SupportLink[] = [
  { title: 'Connecting through a jump host (ssh -J)', href: 'https://man.openbsd.org/ssh#J' },
  {
    title: 'Trusting the cluster user CA (TrustedUserCAKeys)',
    href: 'https://man.openbsd.org/sshd_config#TrustedUserCAKeys',
  },
  {
    title: 'Session recording format (asciicast v2)',
    href: 'https://docs.asciinema.org/manual/asciicast/v2/',
  },
  { title: 'Hardware keys and passkeys (WebAuthn)', href: 'https://webauthn.guide/' },
];
