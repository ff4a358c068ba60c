import { Injectable } from '@nestjs/common';
import { trace } from '@opentelemetry/api';
import { ImageDescriber, type ImageDescription, type TaskImage } from '@toolgate/planner';

export interface UnderstoodTask {
  /** The caller's text, then what its images say on the lines after it. */
  text: string;
  /** What each image contributed, in order. */
  images: ImageDescription[];
}

const tracer = trace.getTracer('toolgate.planner');

/** Query understanding: images become text (OCR or a vision model) before retrieval and planning. */
@Injectable()
export class TaskUnderstanding {
  constructor(private readonly describer: ImageDescriber) {}

  /**
   * The image text goes after the caller's own, so the first line stays the caller's even when it is
   * empty (argument filling reads a table read from an image as the lines after the instruction).
   */
  async understand(text: string, images: TaskImage[]): Promise<UnderstoodTask> {
    if (images.length === 0) return { text, images: [] };
    const described = await this.describe(images);
    const imageText = described
      .map((d) => d.text.trim())
      .filter(Boolean)
      .join('\n');
    return { text: imageText ? `${text}\n${imageText}` : text, images: described };
  }

  /** Each image is named in errors by its index (the describer's contract). */
  private describe(images: TaskImage[]): Promise<ImageDescription[]> {
    return tracer.startActiveSpan('toolgate.understand', async (span) => {
      try {
        span.setAttributes({ 'toolgate.images': images.length, 'toolgate.image_describer': this.describer.kind });
        return await this.describer.describe(images);
      } finally {
        span.end();
      }
    });
  }
}
