import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BM25_ONLY, codesOf, graphql, REPO_ROOT, type RunningGateway, startGateway } from '../support/gateway-process';
import { chatCompletion, type OpenAIWireServer, startOpenAIWireServer } from '../support/openai-wire-server';
import { renderTextImage } from '../support/text-image';

/** searchTools with images, against the built server: local OCR (real tesseract) by default, a vision model when configured. */

const SEARCH = `query($input: SearchToolsInput!) {
  searchTools(input: $input) { tool { id } explanation { summary images { index name source mimeType text } } }
}`;

interface SearchData {
  searchTools: { tool: { id: string }; explanation: { summary: string; images: { index: number; name: string | null; source: string; mimeType: string; text: string }[] } }[];
}

const MILES = 'convert 5 miles to kilometers';
const milesPng = renderTextImage(MILES);
const normalise = (text: string) => text.toLowerCase().replace(/\s+/g, ' ').trim();

describe('image queries over HTTP', () => {
  let work: string;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'toolgate-images-'));
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  describe('with local OCR (the default)', () => {
    let gateway: RunningGateway;

    beforeAll(async () => {
      gateway = await startGateway({ ...BM25_ONLY, TOOLGATE_DATA_DIR: join(work, 'ocr'), TOOLGATE_PLUGIN_DIRS: join(REPO_ROOT, 'plugins') });
    });
    afterAll(() => gateway?.stop());

    it('finds the units tool from a picture of the task, and shows the text the image contributed', async () => {
      const response = await graphql<SearchData>(gateway.url, SEARCH, {
        variables: { input: { query: '', k: 3, images: [{ mimeType: 'image/png', dataBase64: milesPng.toString('base64'), name: 'task.png' }] } },
      });
      expect(response.errors).toBeUndefined();
      const [best] = response.data?.searchTools ?? [];
      expect(best.tool.id).toBe('units/convert');
      expect(best.explanation.images).toEqual([{ index: 0, name: 'task.png', source: 'ocr', mimeType: 'image/png', text: expect.any(String) }]);
      expect(normalise(best.explanation.images[0].text)).toBe(MILES);
      expect(best.explanation.summary).toContain('query included text from 1 image');
    });

    it('refuses an unsupported or mislabelled image with INVALID_ARGUMENTS naming it', async () => {
      const svg = { mimeType: 'image/svg+xml', dataBase64: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>').toString('base64') };
      const unsupported = await graphql(gateway.url, SEARCH, { variables: { input: { query: 'convert units', images: [svg] } } });
      expect(codesOf(unsupported)).toEqual(['INVALID_ARGUMENTS']);
      expect(unsupported.errors?.[0].extensions?.details).toEqual([{ path: '/images/0', message: expect.stringContaining('image/svg+xml" is not supported') }]);

      const jpegAsPng = { mimeType: 'image/png', dataBase64: renderTextImage(MILES, { mimeType: 'image/jpeg' }).toString('base64'), name: 'photo.png' };
      const mislabelled = await graphql(gateway.url, SEARCH, { variables: { input: { query: '', images: [{ mimeType: 'image/png', dataBase64: milesPng.toString('base64') }, jpegAsPng] } } });
      expect(codesOf(mislabelled)).toEqual(['INVALID_ARGUMENTS']);
      expect(mislabelled.errors?.[0].message).toContain('image 2 (photo.png)');
      expect(mislabelled.errors?.[0].extensions?.details).toEqual([{ path: '/images/1', message: 'declared image/png but the data is image/jpeg' }]);
    });

    it('still needs a query when there is no image', async () => {
      const response = await graphql(gateway.url, SEARCH, { variables: { input: { query: '  ' } } });
      expect(codesOf(response)).toEqual(['INVALID_ARGUMENTS']);
      expect(response.errors?.[0].extensions?.details).toEqual([{ path: '/query', message: 'must not be empty without images' }]);
      const empty = await graphql(gateway.url, SEARCH, { variables: { input: { query: '' } } });
      expect(empty.errors?.[0].extensions?.details).toEqual([{ path: '/query', message: 'query must not be empty without images' }]);
    });
  });

  describe('with a vision model on an OpenAI-compatible endpoint', () => {
    let gateway: RunningGateway;
    let server: OpenAIWireServer;
    const apiKey = 'sk-e2e-secret-key-0001';

    beforeAll(async () => {
      server = await startOpenAIWireServer();
      gateway = await startGateway({
        ...BM25_ONLY,
        TOOLGATE_DATA_DIR: join(work, 'vision'),
        TOOLGATE_PLUGIN_DIRS: join(REPO_ROOT, 'plugins'),
        TOOLGATE_PLANNER: 'deterministic',
        TOOLGATE_IMAGE_DESCRIBER: 'vision',
        TOOLGATE_VISION_MODEL: 'e2e-vision',
        OPENAI_BASE_URL: server.baseURL,
        OPENAI_API_KEY: apiKey,
      });
    });
    afterAll(async () => {
      await gateway?.stop();
      await server?.close();
    });

    it('sends the image to the model and searches with its transcription; the key never reaches the log', async () => {
      server.script('/v1/chat/completions', chatCompletion({ content: `${MILES}\nDescription: one line of dark text on white.` }));
      const response = await graphql<SearchData>(gateway.url, SEARCH, { variables: { input: { query: '', k: 3, images: [{ mimeType: 'image/png', dataBase64: milesPng.toString('base64') }] } } });
      expect(response.errors).toBeUndefined();
      const [best] = response.data?.searchTools ?? [];
      expect(best.tool.id).toBe('units/convert');
      expect(best.explanation.images[0]).toMatchObject({ source: 'vision', text: expect.stringContaining(MILES) });

      const request = server.requests.find((r) => r.path === '/v1/chat/completions')?.body as { model: string; messages: { content: unknown }[] };
      expect(request.model).toBe('e2e-vision');
      expect(JSON.stringify(request.messages)).toContain(`data:image/png;base64,${milesPng.toString('base64')}`);
      expect(gateway.logs()).not.toContain(apiKey);
    });
  });
});
