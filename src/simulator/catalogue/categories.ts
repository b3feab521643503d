import type { Category } from './types.ts';

/** The category forest. A slug can stand in several trees (`futures` here), which `root` disambiguates. */
interface CategorySpec {
  slug: string;
  label: string;
  children?: CategorySpec[];
}

const FOREST: CategorySpec[] = [
  {
    slug: 'sports',
    label: 'Sports',
    children: [
      {
        slug: 'soccer',
        label: 'Soccer',
        children: [
          { slug: 'premier-league', label: 'Premier League' },
          { slug: 'la-liga', label: 'La Liga' },
        ],
      },
      {
        slug: 'tennis',
        label: 'Tennis',
        children: [
          { slug: 'atp', label: 'ATP' },
          { slug: 'wta', label: 'WTA' },
        ],
      },
      { slug: 'basketball', label: 'Basketball', children: [{ slug: 'nba', label: 'NBA' }] },
      { slug: 'futures', label: 'Futures' },
    ],
  },
  {
    slug: 'politics',
    label: 'Politics',
    children: [
      { slug: 'us-elections', label: 'US Elections' },
      { slug: 'world-elections', label: 'World Elections' },
    ],
  },
  {
    slug: 'crypto',
    label: 'Crypto',
    children: [
      { slug: 'bitcoin', label: 'Bitcoin' },
      { slug: 'ethereum', label: 'Ethereum' },
      { slug: 'futures', label: 'Futures' },
    ],
  },
  {
    slug: 'economics',
    label: 'Economics',
    children: [
      { slug: 'fed-rates', label: 'Fed Rates' },
      { slug: 'inflation', label: 'Inflation' },
    ],
  },
];

export class CategoryTree {
  readonly #byKey = new Map<string, Category>();
  readonly #bySlug = new Map<string, Category[]>();

  constructor(forest: CategorySpec[] = FOREST) {
    const walk = (spec: CategorySpec, parent: Category | undefined): void => {
      const path = [...(parent?.path ?? []), { slug: spec.slug, label: spec.label }];
      const category: Category = {
        key: path.map((p) => p.slug).join('/'),
        slug: spec.slug,
        label: spec.label,
        parentKey: parent?.key,
        rootSlug: path[0]?.slug ?? spec.slug,
        path,
        isLeaf: !spec.children?.length,
      };
      this.#byKey.set(category.key, category);
      this.#bySlug.set(spec.slug, [...(this.#bySlug.get(spec.slug) ?? []), category]);
      for (const child of spec.children ?? []) walk(child, category);
    };
    for (const root of forest) walk(root, undefined);
  }

  all(): Category[] {
    return [...this.#byKey.values()];
  }

  roots(): Category[] {
    return this.all().filter((c) => c.parentKey === undefined);
  }

  leaves(): Category[] {
    return this.all().filter((c) => c.isLeaf);
  }

  get(key: string): Category {
    const category = this.#byKey.get(key);
    if (!category) throw new Error(`unknown category key ${key}`);
    return category;
  }

  children(key: string): Category[] {
    return this.all().filter((c) => c.parentKey === key);
  }

  /** Every category a slug names, narrowed to one tree when `rootSlug` is given. */
  findBySlug(slug: string, rootSlug?: string): Category[] {
    return (this.#bySlug.get(slug) ?? []).filter((c) => rootSlug === undefined || c.rootSlug === rootSlug);
  }

  /** True when `key` is `ancestorKey` or lies below it. */
  isWithin(key: string, ancestorKey: string): boolean {
    return key === ancestorKey || key.startsWith(`${ancestorKey}/`);
  }
}
