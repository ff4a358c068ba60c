import { ErrorCode } from '@toolgate/sdk';
import { decodeImages, sniffImageFormat } from './image-input.decoder';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16]);
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 ')]);
const b64 = (bytes: Buffer) => bytes.toString('base64');

describe('image input', () => {
  it('knows formats by their magic number, not by what they claim', () => {
    expect([PNG, JPEG, WEBP, Buffer.from('GIF89a...'), Buffer.from([0x49, 0x49, 0x2a, 0]), Buffer.from('%PDF-1.7')].map(sniffImageFormat)).toEqual(['png', 'jpeg', 'webp', 'gif', 'tiff', undefined]);
  });

  it('decodes base64 images of accepted types, aliases included', () => {
    const [png, jpeg] = decodeImages(
      [
        { mimeType: 'image/png', data: b64(PNG), name: 'a.png' },
        { mimeType: 'IMAGE/JPG', data: `${b64(JPEG).slice(0, 4)}\n${b64(JPEG).slice(4)}` },
      ],
      ['png', 'jpeg'],
      1024,
    );
    expect(png).toEqual({ bytes: PNG, format: 'png', mimeType: 'image/png', name: 'a.png' });
    expect(jpeg).toEqual({ bytes: JPEG, format: 'jpeg', mimeType: 'image/jpeg' });
  });

  it.each([
    [
      'a type this describer does not read',
      { mimeType: 'image/tiff', data: b64(Buffer.from([0x49, 0x49, 0x2a, 0])) },
      /image\/tiff" is not supported; use one of image\/png, image\/jpeg, image\/jpg$/,
    ],
    ['broken base64', { mimeType: 'image/png', data: 'iVBOR*w0K' }, /not valid base64/],
    ['bytes of another type than declared', { mimeType: 'image/png', data: b64(JPEG) }, /declared image\/png but the data is image\/jpeg/],
    ['bytes that are no image', { mimeType: 'image/png', data: b64(Buffer.from('hello world!')) }, /not a recognised image/],
    ['an image over the bound', { mimeType: 'image/png', data: b64(Buffer.concat([PNG, Buffer.alloc(2000)])) }, /over the limit of 1024/],
  ])('refuses %s as INVALID_ARGUMENTS at /images/<i>', (_, image, message) => {
    expect(() => decodeImages([{ mimeType: 'image/png', data: b64(PNG) }, image], ['png', 'jpeg'], 1024)).toThrow(
      expect.objectContaining({ code: ErrorCode.INVALID_ARGUMENTS, message: expect.stringMatching(/^image 2: /), details: [{ path: '/images/1', message: expect.stringMatching(message) }] }),
    );
  });
});
