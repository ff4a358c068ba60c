import type { ImageDescriber, ImageDescription, TaskImage } from '@toolgate/planner';
import { TaskUnderstanding } from './task-understanding.service';

const image: TaskImage = { mimeType: 'image/png', data: 'iVBORw0KGgo=' };

function understanding(texts: string[]) {
  const describe = jest.fn(async (images: TaskImage[]): Promise<ImageDescription[]> => images.map((img, i) => ({ text: texts[i], source: 'ocr', mimeType: img.mimeType })));
  return { subject: new TaskUnderstanding({ kind: 'fake', describe } as unknown as ImageDescriber), describe };
}

describe('TaskUnderstanding', () => {
  it('leaves a task without images as it is, asking the describer nothing', async () => {
    const { subject, describe } = understanding([]);
    await expect(subject.understand('  convert 5 miles ', [])).resolves.toEqual({ text: '  convert 5 miles ', images: [] });
    expect(describe).not.toHaveBeenCalled();
  });

  it('puts the text of the images, trimmed and without empty ones, on the lines after the task text', async () => {
    const { subject } = understanding([' category,price\nfruit,1.2 ', '   ', 'second image']);
    const { text, images } = await subject.understand('average price by category', [image, image, image]);
    expect(text).toBe('average price by category\ncategory,price\nfruit,1.2\nsecond image');
    expect(images).toHaveLength(3);
  });

  it('keeps the first line for the task text even when it is empty', async () => {
    const { subject } = understanding(['convert 5 miles to kilometers']);
    await expect(subject.understand('', [image])).resolves.toMatchObject({ text: '\nconvert 5 miles to kilometers' });
  });
});
