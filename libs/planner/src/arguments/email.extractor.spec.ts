import { extractEmails } from './email.extractor';
import { extractUrls } from './url.extractor';

describe('extractEmails', () => {
  it('finds addresses with dots, plus signs and sub-domains', () => {
    expect(extractEmails('mail ana.lopez+crm@mail.example.co.uk, bob@example.org.').map((e) => e.value)).toEqual(['ana.lopez+crm@mail.example.co.uk', 'bob@example.org']);
  });

  it('rejects malformed addresses and leaves user@host inside a URL to the URL', () => {
    expect(extractEmails('bob@@example and @example.com and bob@localhost')).toEqual([]);
    const text = 'open https://user@example.com/x';
    expect(extractEmails(text, extractUrls(text))).toEqual([]);
  });
});
