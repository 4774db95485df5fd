import { afterEach, describe, expect, it, vi } from 'vitest';
import { getLibrarySnippets } from './get-library-snippets';
import { parseModelRecord } from './parse-model-record';
import type { SnippetItem } from './types';

const ID = 'acme/model';

/** Records go through the parser, as they do in the app. */
function snippetsOf(fields: Record<string, unknown>, library?: string) {
  const { record } = parseModelRecord({ json: { id: ID, ...fields } });
  return getLibrarySnippets({ record, ...(library ? { library } : {}) });
}

function codes(items: SnippetItem[]): string[] {
  return items.flatMap((item) => (item.kind === 'code' ? [item.code] : []));
}

afterEach(() => vi.restoreAllMocks());

describe('getLibrarySnippets: template selection', () => {
  const BASE = { cardData: { base_model: 'acme/base-sd' } };
  // [rule, record fields, text the chosen template contains, text it must not contain]
  const rules: Array<[string, Record<string, unknown>, string[], string[]]> = [
    [
      'diffusers: tag StableDiffusionInpaintPipeline → inpainting',
      { library_name: 'diffusers', tags: ['StableDiffusionInpaintPipeline'] },
      ['AutoPipelineForInpainting', 'mask_image'],
      ['load_lora_weights'],
    ],
    [
      'diffusers: tag StableDiffusionXLInpaintPipeline → inpainting',
      { library_name: 'diffusers', tags: ['StableDiffusionXLInpaintPipeline'] },
      ['AutoPipelineForInpainting'],
      [],
    ],
    [
      'diffusers: tag controlnet → controlnet on the base model',
      { library_name: 'diffusers', tags: ['controlnet'], ...BASE },
      [`ControlNetModel.from_pretrained("${ID}")`, '"acme/base-sd", controlnet=controlnet'],
      [],
    ],
    [
      'diffusers: tag lora → LoRA on the base model',
      { library_name: 'diffusers', tags: ['lora'], ...BASE },
      [
        'DiffusionPipeline.from_pretrained("acme/base-sd"',
        `pipe.load_lora_weights("${ID}")`,
        'image = pipe(prompt).images[0]',
      ],
      ['load_image'],
    ],
    [
      'diffusers: lora + pipeline_tag image-to-image',
      { library_name: 'diffusers', tags: ['lora'], pipeline_tag: 'image-to-image', ...BASE },
      [
        'load_lora_weights',
        'Turn this cat into a dog',
        'pipe(image=input_image, prompt=prompt).images[0]',
      ],
      [],
    ],
    [
      'diffusers: lora + pipeline_tag image-to-video',
      { library_name: 'diffusers', tags: ['lora'], pipeline_tag: 'image-to-video', ...BASE },
      ['load_lora_weights', 'guitar-man.png', 'export_to_video'],
      [],
    ],
    [
      'diffusers: lora + pipeline_tag text-to-video',
      { library_name: 'diffusers', tags: ['lora'], pipeline_tag: 'text-to-video', ...BASE },
      ['load_lora_weights', 'output = pipe(prompt=prompt).frames[0]', 'export_to_video'],
      ['load_image'],
    ],
    [
      'diffusers: tag textual_inversion → textual inversion',
      { library_name: 'diffusers', tags: ['textual_inversion'], ...BASE },
      [`pipe.load_textual_inversion("${ID}")`],
      [],
    ],
    [
      'diffusers: tag FluxFillPipeline → flux fill (50 steps, guidance 30, 1632x1232)',
      { library_name: 'diffusers', tags: ['FluxFillPipeline'] },
      [
        'FluxFillPipeline.from_pretrained',
        'num_inference_steps=50',
        'guidance_scale=30',
        'height=1632',
        'width=1232',
      ],
      [],
    ],
    [
      'diffusers: pipeline_tag image-to-image → image-to-image',
      { library_name: 'diffusers', pipeline_tag: 'image-to-image' },
      [`DiffusionPipeline.from_pretrained("${ID}"`, 'Turn this cat into a dog', 'load_image'],
      ['load_lora_weights'],
    ],
    [
      'diffusers: pipeline_tag image-to-video → image-to-video',
      { library_name: 'diffusers', pipeline_tag: 'image-to-video' },
      ['export_to_video', 'pipe(image=image, prompt=prompt).frames[0]'],
      ['load_lora_weights'],
    ],
    [
      'diffusers: text-to-image default, prompt from widgetData',
      {
        library_name: 'diffusers',
        pipeline_tag: 'text-to-image',
        widgetData: [{ text: 'a red fox' }],
      },
      ['prompt = "a red fox"', 'image = pipe(prompt).images[0]'],
      [],
    ],
    [
      'diffusers: default prompt from cardData.instance_prompt',
      {
        library_name: 'diffusers',
        tags: ['lora'],
        cardData: { base_model: 'b/m', instance_prompt: 'sks dog' },
      },
      ['prompt = "sks dog"'],
      [],
    ],
    [
      'keras-hub: task CausalLM',
      { library_name: 'keras-hub', config: { keras_hub: { tasks: ['CausalLM'] } } },
      [`keras_hub.models.CausalLM.from_preset("hf://${ID}"`, 'causal_lm.generate('],
      ['TextClassifier'],
    ],
    [
      'keras-hub: task TextToImage',
      { library_name: 'keras-hub', config: { keras_hub: { tasks: ['TextToImage'] } } },
      [`keras_hub.models.TextToImage.from_preset("hf://${ID}"`, 'text_to_image.generate('],
      [],
    ],
    [
      'keras-hub: task TextClassifier',
      { library_name: 'keras-hub', config: { keras_hub: { tasks: ['TextClassifier'] } } },
      ['keras_hub.models.TextClassifier.from_preset(', 'text_classifier.predict('],
      [],
    ],
    [
      'keras-hub: task ImageClassifier',
      { library_name: 'keras-hub', config: { keras_hub: { tasks: ['ImageClassifier'] } } },
      ['keras_hub.models.ImageClassifier.from_preset(', 'image_classifier.predict('],
      [],
    ],
    [
      'keras-hub: other task → generic task loader',
      { library_name: 'keras-hub', config: { keras_hub: { tasks: ['Seq2SeqLM'] } } },
      [`task = keras_hub.models.Seq2SeqLM.from_preset("hf://${ID}")`],
      [],
    ],
    [
      'PaddleOCR: tag textline_detection → TextDetection',
      { library_name: 'PaddleOCR', tags: ['textline_detection'] },
      ['from paddleocr import TextDetection', 'TextDetection(model_name="model")'],
      [],
    ],
    [
      'PaddleOCR: tag layout_detection → LayoutDetection',
      { library_name: 'PaddleOCR', tags: ['layout_detection'] },
      ['from paddleocr import LayoutDetection'],
      [],
    ],
    [
      'PaddleOCR: tag wired_table_classification → TableClassification',
      { library_name: 'PaddleOCR', tags: ['wired_table_classification'] },
      ['from paddleocr import TableClassification'],
      [],
    ],
    [
      'PaddleOCR: tag doc_vlm → DocVLM',
      { library_name: 'PaddleOCR', tags: ['doc_vlm'] },
      ['from paddleocr import DocVLM', 'batch_size=1'],
      [],
    ],
    [
      'PaddleOCR: no known tag → pointer to the module docs',
      { library_name: 'PaddleOCR', tags: [] },
      ['Please refer to the document'],
      ['from paddleocr import'],
    ],
    [
      'peft: CAUSAL_LM with a base model',
      {
        library_name: 'peft',
        config: { peft: { task_type: 'CAUSAL_LM', base_model_name_or_path: 'acme/base' } },
      },
      [
        'AutoModelForCausalLM.from_pretrained("acme/base")',
        `PeftModel.from_pretrained(base_model, "${ID}")`,
      ],
      [],
    ],
    [
      'sklearn: skops pickle with a file name',
      {
        library_name: 'sklearn',
        tags: ['skops'],
        config: { sklearn: { model: { file: 'model.pkl' }, model_format: 'pickle' } },
      },
      ['model.pkl'],
      [],
    ],
    [
      'speechbrain: a known interface',
      {
        library_name: 'speechbrain',
        config: { speechbrain: { speechbrain_interface: 'EncoderClassifier' } },
      },
      ['EncoderClassifier.from_hparams(', 'model.classify_file("file.wav")'],
      [],
    ],
    [
      'nemo: automatic-speech-recognition tag → ASR',
      { library_name: 'nemo', tags: ['automatic-speech-recognition'] },
      ['nemo_asr.models.ASRModel.from_pretrained'],
      [],
    ],
    [
      'transformers: auto model and processor',
      {
        library_name: 'transformers',
        pipeline_tag: 'text-classification',
        transformersInfo: {
          auto_model: 'AutoModelForSequenceClassification',
          processor: 'AutoTokenizer',
        },
      },
      ['AutoModelForSequenceClassification.from_pretrained', 'pipeline("text-classification"'],
      [],
    ],
  ];

  it.each(rules)('%s', (_rule, fields, contains, excludes) => {
    const { items } = snippetsOf(fields);
    const all = codes(items).join('\n----\n');
    expect(
      items.every((item) => item.kind === 'code'),
      all,
    ).toBe(true);
    for (const text of contains) expect(all).toContain(text);
    for (const text of excludes) expect(all).not.toContain(text);
  });

  it('diffusers: every variant starts with the install line', () => {
    expect(codes(snippetsOf({ library_name: 'diffusers', tags: ['lora'] }).items)[0]).toBe(
      'pip install -U diffusers transformers accelerate',
    );
  });

  it('keras-hub: tasks with examples first, then other tasks, then the backbone', () => {
    const all = codes(
      snippetsOf({
        library_name: 'keras-hub',
        config: { keras_hub: { tasks: ['Seq2SeqLM', 'CausalLM'] } },
      }).items,
    );
    expect(all).toHaveLength(3);
    expect(all[0]).toContain('CausalLM');
    expect(all[1]).toContain('Seq2SeqLM');
    expect(all[2]).toContain('keras_hub.models.Backbone.from_preset');
  });
});
